import type { AttemptOutcome, ExecutionDoc } from '#kairos/domain/execution.js';
import { FINAL_STATUSES } from '#kairos/domain/execution.js';
import type { JobDoc } from '#kairos/domain/job.js';
import { firstOccurrence, nextAfter } from '#kairos/domain/schedule/nextOccurrences.js';
import { skippedOccurrences } from '#kairos/domain/skippedOccurrences.js';
import { toGlobalId } from '#kairos/ids/globalId.js';
import { RETRY_AFTER_SECONDS, type Delivery } from './flakyReceiver.js';

export type CheckedJob = Pick<JobDoc, '_id' | 'schedule' | 'createdAt'>;
export type CheckedExecution = Pick<
  ExecutionDoc,
  | '_id'
  | 'jobId'
  | 'occurrenceKey'
  | 'trigger'
  | 'status'
  | 'scheduledFor'
  | 'attempt'
  | 'attempts'
  | 'nextAttemptAt'
  | 'skippedCount'
  | 'skippedUntil'
>;

export interface CheckInput {
  jobs: CheckedJob[];
  executions: CheckedExecution[];
  /** The HTTP target's own log of what it received. */
  deliveries: Delivery[];
  /** Occurrences due up to this instant must each have exactly one execution. */
  until: Date;
  /** When the check runs. */
  now: Date;
  /** An execution not final is legitimately pending if its next step is due less than this ago. */
  pendingGraceMs: number;
  /**
   * The flow-controlled target: its path, its key's maxConcurrent, and the windows when Redis had
   * just come back empty (the running places it lost let more in until their attempts end).
   */
  flow: { path: string; maxConcurrent: number; forgotten: [Date, Date][] };
}

export interface CheckResult {
  counts: Record<string, number>;
  /** Empty when the run kept every promise; else one line per broken one (kind: detail). */
  violations: string[];
}

const REPEATABLE_AFTER: readonly (AttemptOutcome | null)[] = ['FAILED', 'TIMED_OUT', 'CRASHED'];

/**
 * The chaos run's verdict, from MongoDB's executions and the HTTP target's log: every occurrence
 * due has exactly one execution; each is final or legitimately pending; its attempts are numbered
 * without gaps and every delivery the target saw is a recorded attempt; an execution is delivered
 * again only after a failed, timed-out or crashed attempt, and again after a success only when
 * that attempt was recorded CRASHED (its worker died before recording it). A SKIPPED record of
 * several occurrences past the tenant's budget counts as one execution of each of them.
 */
export function checkRun(input: CheckInput): CheckResult {
  const violations: string[] = [];
  const counts: Record<string, number> = {
    jobs: input.jobs.length,
    occurrences: 0,
    executions: 0,
    succeeded: 0,
    failed: 0,
    pending: 0,
    attempts: 0,
    succeededAttempts: 0,
    failedAttempts: 0,
    timedoutAttempts: 0,
    crashedAttempts: 0,
    deliveries: input.deliveries.length,
    duplicateDeliveries: 0,
    lost: 0,
    doubled: 0,
    unfinished: 0,
    skippedRecords: 0,
    flowPeak: 0,
    tooManyRequests: input.deliveries.filter((d) => d.response === 429).length,
  };
  const byKey = new Map<string, CheckedExecution[]>();
  const jobs = new Map(input.jobs.map((job) => [job._id.toHexString(), job]));
  for (const execution of input.executions) {
    if (execution.trigger === 'MANUAL') continue;
    if (execution.skippedCount) counts.skippedRecords++;
    for (const occurrence of occurrencesOf(execution, jobs.get(execution.jobId.toHexString()), violations)) {
      byKey.set(occurrence.occurrenceKey, [...(byKey.get(occurrence.occurrenceKey) ?? []), occurrence]);
    }
  }

  const expected = new Set<string>();
  for (const job of input.jobs) {
    for (let at = firstOccurrence(job.schedule, job.createdAt); at && at <= input.until; at = nextAfter(job.schedule, at)) {
      expected.add(`${job._id.toHexString()}@${at.toISOString()}`);
    }
  }
  counts.occurrences = expected.size;
  for (const key of expected) {
    const found = byKey.get(key)?.length ?? 0;
    if (found === 0) {
      counts.lost++;
      violations.push(`lost: occurrence ${key} has no execution`);
    } else if (found > 1) {
      counts.doubled++;
      violations.push(`doubled: occurrence ${key} has ${found} executions`);
    }
  }

  const executionsByGlobalId = new Map<string, CheckedExecution>();
  for (const [key, executions] of byKey) {
    const due = executions.filter((e) => e.scheduledFor <= input.until);
    if (due.length > 0 && !expected.has(key)) violations.push(`unexpected: execution for ${key}, not an occurrence of its job`);
    for (const execution of due) {
      executionsByGlobalId.set(toGlobalId('Execution', execution._id), execution);
      counts.executions++;
      counts.attempts += execution.attempts.length;
      for (const attempt of execution.attempts) {
        const outcome = `${(attempt.outcome ?? 'RUNNING').toLowerCase().replace('_', '')}Attempts`;
        counts[outcome] = (counts[outcome] ?? 0) + 1;
      }
      if (execution.status === 'SUCCEEDED') counts.succeeded++;
      if (execution.status === 'FAILED') counts.failed++;
      checkAttempts(execution, violations);
      if (!FINAL_STATUSES.includes(execution.status)) {
        const nextStep =
          execution.status === 'RETRYING'
            ? execution.nextAttemptAt
            : execution.status === 'RUNNING'
              ? execution.attempts.at(-1)?.startedAt
              : execution.scheduledFor;
        if (nextStep && input.now.getTime() - nextStep.getTime() < input.pendingGraceMs) counts.pending++;
        else {
          counts.unfinished++;
          violations.push(`unfinished: execution ${execution._id.toHexString()} (${key}) still ${execution.status}`);
        }
      }
    }
  }

  checkDeliveries(input.deliveries, executionsByGlobalId, counts, violations);
  checkFlow(input, counts, violations);
  return { counts, violations };
}

/** The flow-controlled target never saw more than its key's maxConcurrent requests at once (but just after Redis lost its data). */
function checkFlow({ deliveries, flow }: CheckInput, counts: Record<string, number>, violations: string[]): void {
  for (const delivery of deliveries) {
    if (!delivery.path.endsWith(flow.path)) continue;
    counts.flowPeak = Math.max(counts.flowPeak, delivery.inFlight);
    const forgotten = flow.forgotten.some(([from, to]) => delivery.at >= from.getTime() && delivery.at <= to.getTime());
    if (delivery.inFlight > flow.maxConcurrent && !forgotten) {
      violations.push(
        `flow control: ${delivery.inFlight} requests in flight at ${new Date(delivery.at).toISOString()} with maxConcurrent ${flow.maxConcurrent}`,
      );
    }
  }
}

/**
 * The execution as one per occurrence it stands for: itself, or for a SKIPPED budget record, one
 * copy per occurrence of its job's schedule from its first (each with that occurrence's key and
 * instant). A record whose count or last instant does not match the schedule is `unexpected`.
 */
function occurrencesOf(execution: CheckedExecution, job: CheckedJob | undefined, violations: string[]): CheckedExecution[] {
  if (!execution.skippedCount || !job) return [execution];
  const instants = skippedOccurrences(job.schedule, execution);
  if (instants.length !== execution.skippedCount || instants.at(-1)?.getTime() !== execution.skippedUntil?.getTime()) {
    violations.push(
      `unexpected: SKIPPED record ${execution._id.toHexString()} (${execution.occurrenceKey}) stands for ${execution.skippedCount} occurrences to ${execution.skippedUntil?.toISOString()}, not consecutive occurrences of its job`,
    );
  }
  return instants.map((at) => ({ ...execution, occurrenceKey: `${execution.jobId.toHexString()}@${at.toISOString()}`, scheduledFor: at }));
}

function checkAttempts(execution: CheckedExecution, violations: string[]): void {
  const id = execution._id.toHexString();
  const numbers = execution.attempts.map((a) => a.number);
  if (numbers.some((n, i) => n !== i + 1) || numbers.length !== execution.attempt) {
    violations.push(`attempts: execution ${id} has attempts [${numbers.join(',')}] but attempt ${execution.attempt}`);
  }
  const open = execution.attempts.filter((a) => a.outcome === null);
  if (open.length > 1 || (open.length === 1 && (execution.status !== 'RUNNING' || open[0] !== execution.attempts.at(-1)))) {
    violations.push(`attempts: execution ${id} (${execution.status}) has an attempt without an outcome that is not the running one`);
  }
}

function checkDeliveries(
  deliveries: Delivery[],
  executions: Map<string, CheckedExecution>,
  counts: Record<string, number>,
  violations: string[],
): void {
  const byKey = new Map<string, Delivery[]>();
  for (const delivery of deliveries) byKey.set(delivery.idempotencyKey, [...(byKey.get(delivery.idempotencyKey) ?? []), delivery]);
  for (const [key, received] of byKey) {
    const execution = executions.get(key);
    // Deliveries of executions due after `until` are outside the checked window.
    if (!execution) continue;
    const seen = new Set<number>();
    // Whether the delivery just before this one was answered 2xx: a delivery after that is a duplicate.
    let previousAnsweredOk = false;
    let previousDelivery: Delivery | null = null;
    for (const delivery of received.sort((a, b) => a.at - b.at)) {
      const attempt = execution.attempts.find((a) => a.number === delivery.attempt);
      if (!attempt) violations.push(`unrecorded: ${key} attempt ${delivery.attempt} reached the target but is not in MongoDB`);
      if (seen.has(delivery.attempt)) violations.push(`redelivered: ${key} attempt ${delivery.attempt} reached the target twice`);
      if (delivery.attempt > 1) {
        const previous = execution.attempts.find((a) => a.number === delivery.attempt - 1);
        if (previous && !REPEATABLE_AFTER.includes(previous.outcome)) {
          violations.push(`repeated: ${key} attempt ${delivery.attempt} after attempt ${delivery.attempt - 1} ended ${previous.outcome}`);
        }
        // A recorded 429's Retry-After is obeyed (a crashed attempt's next one may come at once).
        if (
          previousDelivery?.response === 429 &&
          previous?.outcome === 'FAILED' &&
          delivery.at - previousDelivery.at < RETRY_AFTER_SECONDS * 1000
        ) {
          violations.push(
            `retry-after: ${key} attempt ${delivery.attempt} came ${delivery.at - previousDelivery.at} ms after a 429 asking for ${RETRY_AFTER_SECONDS} s`,
          );
        }
        if (previousAnsweredOk) {
          counts.duplicateDeliveries++;
          if (previous?.outcome !== 'CRASHED')
            violations.push(
              `duplicate: ${key} delivered again after a 2xx, but attempt ${delivery.attempt - 1} is ${previous?.outcome}, not CRASHED`,
            );
        }
      }
      seen.add(delivery.attempt);
      previousDelivery = delivery;
      previousAnsweredOk = typeof delivery.response === 'number' && delivery.response < 300;
    }
  }
}
