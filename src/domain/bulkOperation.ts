import type { ObjectId } from 'mongodb';
import type { ExecutionStatus } from './execution.js';

/*
 * A bulk operation: one retry or cancel applied to a fixed set of a tenant's executions, run in the
 * background by the api processes (executions/bulkRunner.ts), resumable after a crash.
 */

export const BULK_OPERATION_KINDS = ['RETRY', 'CANCEL'] as const;
export type BulkOperationKind = (typeof BULK_OPERATION_KINDS)[number];

export const BULK_OPERATION_STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED'] as const;
export type BulkOperationStatus = (typeof BULK_OPERATION_STATUSES)[number];

/** Item errors kept on the operation: a sample, not every one (the counts are whole). */
export const BULK_ERROR_SAMPLE = 10;

/** One item that could not be retried or cancelled, and why. */
export interface BulkItemError {
  executionId: ObjectId;
  message: string;
}

/** The `bulkOperations` collection's document (small: the matched set is in `bulkOperationItems`). */
export interface BulkOperationDoc {
  _id: ObjectId;
  tenantId: string;
  /** The client's idempotency key, or `auto:<_id>` when it gave none (the unique index on tenant + key still holds). */
  operationId: string;
  kind: BulkOperationKind;
  /** Its state (not `status`, the word of an execution's state machine, which only src/transitions writes). */
  state: BulkOperationStatus;
  /** Why it FAILED; null otherwise. */
  reason: string | null;
  /** The executions matched when it was created. */
  total: number;
  /** Items handled so far, in the snapshot's order: the runner resumes from here. */
  position: number;
  done: number;
  failed: number;
  errors: BulkItemError[];
  /** How many item chunks hold the snapshot (`<_id>:<n>` for n in [0, chunks)). */
  chunks: number;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

/** One matched execution as the snapshot holds it: a retry or cancel is a compare-and-set on the status and attempt seen then. */
export interface BulkItem {
  _id: ObjectId;
  jobId: ObjectId;
  status: ExecutionStatus;
  attempt: number;
}

/** The `bulkOperationItems` collection's document: up to BULK_CHUNK_ITEMS items of one operation, in order. */
export interface BulkItemChunkDoc {
  /** `<operation id hex>:<chunk number>`. */
  _id: string;
  tenantId: string;
  operation: ObjectId;
  items: BulkItem[];
}

export const BULK_CHUNK_ITEMS = 1000;

export function chunkId(operation: ObjectId, n: number): string {
  return `${operation.toHexString()}:${n}`;
}
