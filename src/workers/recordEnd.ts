import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { decideAttemptEnd, type AttemptResult } from '../domain/attemptEnd.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import { queueEntry, type JobSnapshot } from '../queue/queueEntry.js';
import type { EndRequest, RunStore } from '../store/runStore.js';
import { endAttempt, type EndAttemptDeps } from '../transitions/endAttempt.js';
import type { StatusPublisher } from '../transitions/statusEvents.js';
import { attemptLogger } from './attemptLogger.js';
import type { Started } from './claimAttempt.js';
import { retryWhileMongoDown } from './retryWhileMongoDown.js';
import type { Run } from './run.js';

/** How long a finished attempt's end is retried while MongoDB is unreachable. */
export const END_RETRY_MS = 120_000;

export interface EndDeps {
  runStore: Pick<RunStore, 'endAttempt'>;
  /** Where a retry's next attempt is queued. */
  queues: Pick<ExecutionQueues, 'enqueue'>;
  events: StatusPublisher;
  /** Records attempts, retries and finished executions. */
  metrics: EndAttemptDeps['metrics'];
  clock: Clock;
  /** The backoff's jitter. */
  random: () => number;
  logger: Logger;
  workerId: string;
}

/**
 * Records the attempt's end as decideAttemptEnd says (group-committed, and retried while MongoDB
 * is unreachable, so a finished attempt's result is not lost), through transitions/endAttempt.ts,
 * which announces it; then, for a retry, queues the next attempt at its nextAttemptAt (which reads
 * the job again: a fixed target applies to it).
 */
export async function recordEnd(
  deps: EndDeps,
  run: Run,
  job: Pick<JobSnapshot, 'retryPolicy'>,
  started: Started,
  result: AttemptResult,
): Promise<void> {
  const { retryAfterSeconds, ...decision } = decideAttemptEnd(
    result,
    { number: started.number, maxAttempts: run.maxAttempts, retryPolicy: job.retryPolicy },
    deps.clock(),
    deps.random,
  );
  // A start not written yet is written by the end, in the same statement.
  const startWritten = await started.claim.settle();
  const store = {
    endAttempt: (request: EndRequest) => retryWhileMongoDown(() => deps.runStore.endAttempt(request), { forMs: END_RETRY_MS }),
  };
  const ended = await endAttempt(
    { ...deps, store },
    {
      run,
      attempt: started.number,
      startedAt: started.startedAt,
      workerId: deps.workerId,
      startWritten,
      // The obeyed Retry-After only when there is one: every end's event carries the end's fields.
      end: {
        ...decision,
        ...(retryAfterSeconds !== null ? { retryAfterSeconds } : {}),
        outcome: result.outcome,
        httpStatus: result.httpStatus,
      },
    },
  );
  // Made only when a line is written: a pino child logger costs about 65 µs, too much for every attempt.
  const logger = () => attemptLogger(deps.logger, run.tenantId, run.jobId, run.executionId);
  // The execution moved on without this attempt (taken over meanwhile, or cancelled and retried): say so, for operators.
  if (ended.kind === 'moved-on')
    logger().warn('attempt ended after its execution moved on', { attempt: started.number, outcome: result.outcome });
  if (ended.kind !== 'ended') return;
  if (result.outcome === 'FAILED' || result.outcome === 'TIMED_OUT' || result.outcome === 'CRASHED') {
    // One line per failed attempt (a refused target included: its error says so), for operators.
    logger().warn('attempt failed', { attempt: started.number, outcome: result.outcome, error: decision.error, next: decision.status });
  }
  if (ended.retry) await deps.queues.enqueue([queueEntry(ended.retry.execution, ended.retry.dueAt)]);
}
