import type { ObjectId } from 'mongodb';
import { BadUserInputError } from '../errors/index.js';
import { isPlainText } from './plainText.js';

/** The longest external id a job may carry. */
export const EXTERNAL_ID_LENGTH = 200;

/** Validates an external id as a client gives it; undefined and null mean none. Throws BadUserInputError. */
export function parseExternalId(value: string | null | undefined, field = 'externalId'): string | null {
  if (value === null || value === undefined) return null;
  if (value.length === 0 || value.length > EXTERNAL_ID_LENGTH || !isPlainText(value)) {
    throw new BadUserInputError(`${field} must be 1 to ${EXTERNAL_ID_LENGTH} characters of text without control characters`, field);
  }
  return value;
}

/** What the tenant's unique index on external ids holds for a job with this external id. */
export function externalKeyOf(externalId: string): string {
  return `ext:${externalId}`;
}

/**
 * What the tenant's unique index on external ids holds for job `jobId`: externalKeyOf its external id,
 * or `auto:<job id>` for a job without one. Never null: a unique index counts every job without the
 * field as the same null on MongoDB, and FerretDB 1.24 has no partial indexes to leave them out (as
 * with idempotency keys).
 */
export function jobExternalKey(externalId: string | null, jobId: ObjectId): string {
  return externalId === null ? `auto:${jobId.toHexString()}` : externalKeyOf(externalId);
}
