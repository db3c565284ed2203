import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { EXTERNAL_ID_LENGTH, externalKeyOf, jobExternalKey, parseExternalId } from '../../src/domain/externalId.js';
import { BadUserInputError } from '../../src/errors/index.js';

describe('parseExternalId', () => {
  it('takes none for undefined and null, and a valid id as it is', () => {
    expect(parseExternalId(undefined)).toBeNull();
    expect(parseExternalId(null)).toBeNull();
    expect(parseExternalId(' crm:42 ')).toBe(' crm:42 ');
    expect(parseExternalId('x'.repeat(EXTERNAL_ID_LENGTH))).toHaveLength(EXTERNAL_ID_LENGTH);
  });

  it.each([
    ['empty', ''],
    ['too long', 'x'.repeat(EXTERNAL_ID_LENGTH + 1)],
    ['with a control character', 'a\tb'],
    ['with a lone surrogate', '\udc00'],
  ])('refuses one %s, naming the field', (_case, value) => {
    let caught: unknown;
    try {
      parseExternalId(value, 'filter.externalId');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(BadUserInputError);
    expect((caught as BadUserInputError).message).toBe(
      `filter.externalId must be 1 to ${EXTERNAL_ID_LENGTH} characters of text without control characters`,
    );
    expect((caught as BadUserInputError).details).toEqual({ field: 'filter.externalId' });
  });
});

describe('jobExternalKey', () => {
  const id = new ObjectId('65a000000000000000000001');

  it('is the external id, prefixed, for a job with one', () => {
    expect(jobExternalKey('crm:42', id)).toBe('ext:crm:42');
    expect(jobExternalKey('crm:42', id)).toBe(externalKeyOf('crm:42'));
  });

  it("is the job's own id for a job without one, so no two such jobs collide in the unique index", () => {
    expect(jobExternalKey(null, id)).toBe('auto:65a000000000000000000001');
    expect(jobExternalKey(null, id)).not.toBe(jobExternalKey(null, new ObjectId()));
  });

  it('never makes an external id that looks like a job id collide with that job', () => {
    expect(jobExternalKey('auto:65a000000000000000000001', new ObjectId())).not.toBe(jobExternalKey(null, id));
  });
});
