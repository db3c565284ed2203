import { ObjectId } from 'mongodb';
import type { ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import { createLogger, type Logger, type LogLevel } from '../../src/logger.js';
import type { KairosMetrics } from '../../src/metrics/kairosMetrics.js';
import type { QueueEntry } from '../../src/queue/queueEntry.js';
import type { EndRequest, EndResult } from '../../src/store/runStore.js';
import type { Started } from '../../src/workers/claimAttempt.js';
import { DeferredClaim } from '../../src/workers/deferredClaims.js';
import { EXECUTION_ID } from './executionFixtures.js';

/*
 * Fakes of the ports the worker stage and the transitions share (event bus, queues, metrics,
 * logger), each keeping what it was given in an array a test asserts on.
 */

/** A logger for tests that look at no log line. */
export function silentLogger(): Logger {
  return createLogger({}, 'silent');
}

/** A logger whose lines at `level` and above are kept, parsed, in `lines`. */
export function loggedLines(level: LogLevel = 'info'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { logger: createLogger({}, level, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)), lines };
}

/** An event bus keeping what is published in `published`; `onPublish` is told first (a test noting the order of calls). */
export function publishedEvents(onPublish?: () => void): {
  events: { publish: (events: ExecutionEventMessage[]) => Promise<void> };
  published: ExecutionEventMessage[];
} {
  const published: ExecutionEventMessage[] = [];
  const publish = async (events: ExecutionEventMessage[]) => {
    onPublish?.();
    published.push(...events);
  };
  return { events: { publish }, published };
}

/** Queues keeping the entries added in `enqueued`. */
export function enqueuedEntries(): { queues: { enqueue: (entries: QueueEntry[]) => Promise<void> }; enqueued: QueueEntry[] } {
  const enqueued: QueueEntry[] = [];
  const enqueue = async (entries: QueueEntry[]) => {
    enqueued.push(...entries);
  };
  return { queues: { enqueue }, enqueued };
}

/** The metrics of an attempt's end and of a takeover, each counted as a line of what it is labelled by, in `counted`. */
export function attemptMetrics(): {
  metrics: Pick<KairosMetrics, 'tookOver' | 'attemptEnded' | 'retried' | 'executionFinished'>;
  counted: string[];
} {
  const counted: string[] = [];
  const metrics: Pick<KairosMetrics, 'tookOver' | 'attemptEnded' | 'retried' | 'executionFinished'> = {
    tookOver: () => void counted.push('took over'),
    attemptEnded: (outcome, workload, tenantId, durationMs) =>
      void counted.push(`attempt ${outcome} ${workload} ${tenantId} ${durationMs} ms`),
    retried: (workload) => void counted.push(`retried ${workload}`),
    executionFinished: (status, trigger, tenantId) => void counted.push(`finished ${status} ${trigger} ${tenantId}`),
  };
  return { metrics, counted };
}

/** A store whose attempt ends answer `answers` in turn (an Error is thrown), then end at `at`; what it was asked is kept in `requests`. */
export function endingStore(
  at: Date,
  ...answers: (Partial<EndResult> | Error)[]
): { store: { endAttempt: (request: EndRequest) => Promise<EndResult> }; requests: EndRequest[] } {
  const requests: EndRequest[] = [];
  const endAttempt = async (request: EndRequest): Promise<EndResult> => {
    requests.push(request);
    const answer = answers.shift() ?? {};
    if (answer instanceof Error) throw answer;
    return { ended: true, addedToCancelled: false, at, ...answer };
  };
  return { store: { endAttempt }, requests };
}

/** The first attempt of EXECUTION_ID, claimed from QUEUED by worker-1 at `startedAt`, its start in MongoDB (`written`) or not yet. */
export function startedAttempt(startedAt: Date, written: boolean): Started {
  const request = {
    id: new ObjectId(EXECUTION_ID),
    from: { status: 'QUEUED' as const, attempt: 0 },
    workerId: 'worker-1',
    startedAt,
    deadlineAfterMs: 1,
  };
  const claim = new DeferredClaim({ claim: async () => ({ claimed: true }) }, request, () => undefined, written);
  return { number: 1, startedAt, claim };
}
