import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS, PER_PASS_BUCKETS } from './buckets.js';

/** The families the scheduler records: its sweep passes, its leadership and reconcile's repairs. */
export function schedulerFamilies(registers: Registry[]) {
  const families = {
    sweepDuration: new Histogram({
      name: 'kairos_sweep_pass_duration_seconds',
      help: "Duration of the leader's sweep passes.",
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    sweepJobs: new Histogram({
      name: 'kairos_sweep_jobs_per_pass',
      help: 'Due jobs one sweep pass materialised.',
      buckets: PER_PASS_BUCKETS,
      registers,
    }),
    sweepOccurrences: new Histogram({
      name: 'kairos_sweep_occurrences_per_pass',
      help: 'Executions (occurrences) one sweep pass wrote.',
      buckets: PER_PASS_BUCKETS,
      registers,
    }),
    sweepBehind: new Gauge({
      name: 'kairos_sweep_behind_seconds',
      help: 'How far the last sweep pass was behind: now minus the earliest cursor of a due job it found (0 when every due job was found ahead of time).',
      registers,
    }),
    sweepLastPass: new Gauge({
      name: 'kairos_sweep_last_pass_timestamp_seconds',
      help: 'When the last sweep pass of this process ended (Unix seconds).',
      registers,
    }),
    leader: new Gauge({ name: 'kairos_scheduler_leader', help: '1 while this scheduler holds the leader lease, else 0.', registers }),
    leadershipChanges: new Counter({
      name: 'kairos_scheduler_leadership_changes_total',
      help: 'Leader lease acquired or lost by this scheduler.',
      labelNames: ['change'],
      registers,
    }),
    reconcileRepairs: new Counter({
      name: 'kairos_reconcile_repairs_total',
      help: 'Executions re-enqueued by reconcile (requeued: waiting past their time; takeover: RUNNING past their deadline) or by a new leader (leader_requeue).',
      labelNames: ['kind'],
      registers,
    }),
  };
  // Zero series for the label values known up front, so a rate() works from the first scrape.
  for (const change of ['acquired', 'lost']) families.leadershipChanges.inc({ change }, 0);
  for (const kind of ['requeued', 'takeover', 'leader_requeue']) families.reconcileRepairs.inc({ kind }, 0);
  families.leader.set(0);
  return families;
}
