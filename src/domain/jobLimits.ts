/**
 * The limits of a job's input, enforced by `jobs/parseJobInput.ts`. They bound more than the input:
 * the queue entry's size (`queue/queueEntry.ts`) is computed from them.
 */
export const LIMITS = {
  nameLength: 200,
  descriptionLength: 2000,
  payloadBytes: 256 * 1024,
  urlLength: 2048,
  headerCount: 32,
  headerValueLength: 4096,
  /** All header names and values of a target together. */
  headerBytes: 16 * 1024,
  /** Arrays and objects nested in a payload. */
  payloadDepth: 64,
  timeoutSeconds: 24 * 3600,
  idempotencyKeyLength: 200,
};
