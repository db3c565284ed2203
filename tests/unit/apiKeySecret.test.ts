import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { hasApiKeyShape, hashApiKeySecret, isApiKeyToken, newApiKeySecret, shownPrefix } from '../../src/apiKeys/apiKeySecret.js';

describe('API key secrets', () => {
  it('are kairos_ followed by 43 base62 characters (32 random bytes)', () => {
    const secret = newApiKeySecret();
    expect(secret).toMatch(/^kairos_[0-9A-Za-z]{43}$/);
    expect(hasApiKeyShape(secret)).toBe(true);
    expect(isApiKeyToken(secret)).toBe(true);
  });

  it('encode the random bytes as one base62 number, zero-padded', () => {
    expect(newApiKeySecret(() => Buffer.alloc(32))).toBe(`kairos_${'0'.repeat(43)}`);
    expect(newApiKeySecret(() => Buffer.concat([Buffer.alloc(31), Buffer.from([61])]))).toBe(`kairos_${'0'.repeat(42)}z`);
    expect(newApiKeySecret(() => Buffer.concat([Buffer.alloc(31), Buffer.from([62])]))).toBe(`kairos_${'0'.repeat(41)}10`);
    // The largest 256-bit number still fits in 43 digits.
    expect(newApiKeySecret(() => Buffer.alloc(32, 0xff))).toMatch(/^kairos_[1-9A-Za-z][0-9A-Za-z]{42}$/);
  });

  it('differ every time', () => {
    const secrets = new Set(Array.from({ length: 200 }, () => newApiKeySecret()));
    expect(secrets.size).toBe(200);
  });

  it('are stored as their hex SHA-256 only', () => {
    const secret = newApiKeySecret();
    expect(hashApiKeySecret(secret)).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(hashApiKeySecret(secret)).not.toContain(secret.slice(7, 20));
  });

  it('show kairos_ and 6 more characters as their prefix', () => {
    const secret = newApiKeySecret();
    expect(shownPrefix(secret)).toBe(secret.slice(0, 13));
  });

  it.each([
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.e30.sig', false, false],
    ['too short', 'kairos_abc', true, false],
    ['too long', `kairos_${'a'.repeat(44)}`, true, false],
    ['a non-base62 character', `kairos_${'a'.repeat(42)}-`, true, false],
    ['an operator-looking body', `kairos_${'$ne'.padEnd(43, 'x')}`, true, false],
    ['another prefix', `Kairos_${'a'.repeat(43)}`, false, false],
  ])('tell %s apart', (_label, token, isKey, shaped) => {
    expect(isApiKeyToken(token)).toBe(isKey);
    expect(hasApiKeyShape(token)).toBe(shaped);
  });
});
