import { describe, expect, it } from '@jest/globals';
import { closeReason } from '../../src/api/closeReason.js';

describe('closeReason', () => {
  it('keeps a short reason as it is', () => {
    expect(closeReason('The token has expired')).toBe('The token has expired');
  });

  it('cuts a long reason to the 123 bytes a close frame allows, at a character boundary', () => {
    const long =
      'The token signature does not match; mint a new one with npm run -s token (in development) or get one from the issuer of your tokens';
    expect(Buffer.byteLength(long)).toBeGreaterThan(123);
    const cut = closeReason(long);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(123);
    expect(cut.endsWith('…')).toBe(true);
    expect(long.startsWith(cut.slice(0, -1))).toBe(true);
    const wide = closeReason('é'.repeat(100));
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(123);
    expect(wide).toMatch(/^é+…$/);
  });
});
