import { describe, expect, it } from '@jest/globals';
import { MAX_RETRY_AFTER_SECONDS, parseRetryAfter } from '../../src/domain/retryAfter.js';

const NOW = new Date('2026-12-07T12:00:00.000Z');

describe('parseRetryAfter', () => {
  it('reads delay seconds', () => {
    expect(parseRetryAfter('4', NOW)).toBe(4);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120);
    expect(parseRetryAfter('0', NOW)).toBe(0);
  });

  it('reads an IMF-fixdate as the whole seconds from now up to it', () => {
    expect(parseRetryAfter('Mon, 07 Dec 2026 12:01:00 GMT', NOW)).toBe(60);
    const halfSecondOn = new Date('2026-12-07T12:00:00.500Z');
    expect(parseRetryAfter('Mon, 07 Dec 2026 12:00:10 GMT', halfSecondOn)).toBe(10);
  });

  it('reads the obsolete RFC 850 and asctime forms, in UTC', () => {
    expect(parseRetryAfter('Monday, 07-Dec-26 12:02:00 GMT', NOW)).toBe(120);
    expect(parseRetryAfter('Mon Dec  7 12:00:30 2026', NOW)).toBe(30);
  });

  it('ignores a date that is not after now', () => {
    expect(parseRetryAfter('Mon, 07 Dec 2026 11:59:59 GMT', NOW)).toBeNull();
    expect(parseRetryAfter('Mon, 07 Dec 2026 12:00:00 GMT', NOW)).toBeNull();
    // Two-digit years more than 50 years ahead are in the past century.
    expect(parseRetryAfter('Thursday, 07-Dec-90 12:00:00 GMT', NOW)).toBeNull();
  });

  it('ignores what is neither form', () => {
    for (const value of [
      undefined,
      null,
      '',
      '  ',
      'soon',
      '-5',
      '1.5',
      '4s',
      '0x10',
      '2026-12-08T00:00:00Z',
      'Mon, 31 Feb 2027 00:00:00 GMT',
      'Mon, 07 Dec 2026 25:00:00 GMT',
      'Mon, 07 Dec 2026 12:01:00 UTC',
    ])
      expect(parseRetryAfter(value, NOW)).toBeNull();
  });

  it('cuts a longer wait to the maximum of one hour', () => {
    expect(MAX_RETRY_AFTER_SECONDS).toBe(3600);
    expect(parseRetryAfter('3600', NOW)).toBe(3600);
    expect(parseRetryAfter('3601', NOW)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(parseRetryAfter('99999999999999999999999', NOW)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(parseRetryAfter('Tue, 08 Dec 2026 12:00:00 GMT', NOW)).toBe(MAX_RETRY_AFTER_SECONDS);
  });
});
