import { describe, expect, it } from '@jest/globals';
import { HIDDEN_HEADER_VALUE, visibleHeaderValue } from '../../src/domain/headerVisibility.js';

describe("an HTTP target header's visible value", () => {
  it('is hidden from a VIEWER, whatever the header holds', () => {
    expect(visibleHeaderValue('Bearer s3cret', 'VIEWER')).toBe(HIDDEN_HEADER_VALUE);
    expect(visibleHeaderValue('billing', 'VIEWER')).toBe(HIDDEN_HEADER_VALUE);
    expect(visibleHeaderValue('', 'VIEWER')).toBe(HIDDEN_HEADER_VALUE);
  });

  it('is the value itself for MEMBER and ADMIN, who may edit the job', () => {
    expect(visibleHeaderValue('Bearer s3cret', 'MEMBER')).toBe('Bearer s3cret');
    expect(visibleHeaderValue('Bearer s3cret', 'ADMIN')).toBe('Bearer s3cret');
  });

  it('is a non-empty mask that gives nothing of the value away', () => {
    expect(HIDDEN_HEADER_VALUE).toBe('<hidden>');
  });
});
