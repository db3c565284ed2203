import type { BulkOperationKind } from '../domain/bulkOperation.js';
import { RUNNING_STATUS, type ExecutionStatus } from '../domain/execution.js';
import { BadUserInputError } from '../errors/index.js';
import { PENDING } from '../transitions/cancelWaiting.js';
import { RETRYABLE } from '../transitions/requeueExecution.js';
import { isPlainText } from '../domain/plainText.js';

/** The statuses a bulk cancel can end: waiting ones, and RUNNING ones (their attempt is aborted), as cancelExecution. */
export const CANCELLABLE: readonly ExecutionStatus[] = [...PENDING, RUNNING_STATUS];

/** The longest operationId a client may give (as a job's idempotencyKey). */
export const OPERATION_ID_LENGTH = 200;

/**
 * The statuses a bulk operation's filter matches: the filter's own, narrowed to those the operation
 * applies to (a retry: FAILED and CANCELLED; a cancel: waiting and running), so an execution it cannot
 * act on is never in its set. Without statuses a retry takes the dead letters (FAILED), a cancel
 * every cancellable status. A filter that names only other statuses is BAD_USER_INPUT.
 */
export function bulkStatuses(kind: BulkOperationKind, requested: readonly ExecutionStatus[] | null | undefined): ExecutionStatus[] {
  const allowed = kind === 'RETRY' ? RETRYABLE : CANCELLABLE;
  if (!requested?.length) return kind === 'RETRY' ? ['FAILED'] : [...CANCELLABLE];
  const statuses = allowed.filter((s) => requested.includes(s));
  if (statuses.length === 0) {
    throw new BadUserInputError(
      `A bulk ${kind === 'RETRY' ? 'retry' : 'cancel'} applies to executions in ${allowed.join(', ')}; filter.statuses names none of them`,
      'filter.statuses',
    );
  }
  return statuses;
}

/** Refuses a set of `matched` executions larger than `max` (BULK_MAX_EXECUTIONS), before anything is done. */
export function checkMatched(matched: number, max: number): void {
  if (matched > max) {
    throw new BadUserInputError(
      `The filter matches more than ${max} executions, the most one bulk operation may take (BULK_MAX_EXECUTIONS); narrow it, e.g. with finishedAfter and finishedBefore`,
      'filter',
    );
  }
}

/** A client's operationId, checked: 1 to OPERATION_ID_LENGTH characters, no control characters. Null when none was given. */
export function parseOperationId(operationId: string | null | undefined): string | null {
  if (operationId === null || operationId === undefined) return null;
  if (operationId.length === 0 || operationId.length > OPERATION_ID_LENGTH || !isPlainText(operationId)) {
    throw new BadUserInputError(`operationId must be 1 to ${OPERATION_ID_LENGTH} characters, without control characters`, 'operationId');
  }
  return operationId;
}
