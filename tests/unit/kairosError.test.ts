import { describe, expect, it } from '@jest/globals';
import { BadUserInputError, ConflictError, RateLimitedError } from '../../src/errors/index.js';

/** Kairos' errors are answers to the client: no stack trace is captured for them (it is never logged or sent), and other errors keep theirs. */
describe('KairosError', () => {
  it('captures no stack frames, and leaves the stack trace limit as it found it', () => {
    const limit = Error.stackTraceLimit;
    for (const error of [new RateLimitedError('slow down', 2), new ConflictError('no'), new BadUserInputError('bad')]) {
      expect(error.stack).not.toMatch(/\n\s+at /);
      expect(error.message).toBeTruthy();
    }
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('a fault').stack).toMatch(/\n\s+at /);
  });

  it('keeps its code, details and name', () => {
    const error = new RateLimitedError('slow down', 2);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', name: 'RateLimitedError', details: { retryAfterSeconds: 2 } });
  });
});
