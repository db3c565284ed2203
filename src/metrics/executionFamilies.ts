import { Counter, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS } from './buckets.js';

/**
 * The families the workers record as executions and attempts end: start lag, outcomes, retries and
 * takeovers. `tenant` is `['tenant']` with METRICS_TENANT_LABEL, else empty.
 */
export function executionFamilies(registers: Registry[], tenant: string[]) {
  const families = {
    executionsFinished: new Counter({
      name: 'kairos_executions_finished_total',
      help: 'Executions that reached a final status, by status (SUCCEEDED, FAILED, CANCELLED, SKIPPED) and trigger; counted by the worker that ended them.',
      labelNames: ['status', 'trigger', ...tenant],
      registers,
    }),
    startLag: new Histogram({
      name: 'kairos_execution_start_lag_seconds',
      help: 'How late a first attempt started after its execution was due (scheduledFor).',
      labelNames: ['trigger', 'workload', ...tenant],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    attemptDuration: new Histogram({
      name: 'kairos_attempt_duration_seconds',
      help: 'Duration of attempts, from claim to recorded end, by outcome.',
      labelNames: ['outcome', 'workload'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    attempts: new Counter({
      name: 'kairos_attempts_total',
      help: 'Attempts ended, by outcome (SUCCEEDED, FAILED, TIMED_OUT, CRASHED, CANCELLED).',
      labelNames: ['outcome', 'workload', ...tenant],
      registers,
    }),
    retries: new Counter({
      name: 'kairos_retries_total',
      help: 'Executions put back to RETRYING after a failed, timed-out or crashed attempt.',
      labelNames: ['workload'],
      registers,
    }),
    takeovers: new Counter({
      name: 'kairos_takeovers_total',
      help: 'Lost attempts recorded CRASHED by a worker taking over from one that disappeared.',
      registers,
    }),
  };
  // A zero series, so a rate() works from the first scrape.
  families.takeovers.inc(0);
  return families;
}
