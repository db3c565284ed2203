import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AttemptOutcome, ExecutionStatus, ExecutionTrigger } from '../domain/execution.js';
import type { Workload } from '../domain/job.js';

/** Seconds; resolves 5 ms to 60 s (start lag, attempt duration, GraphQL latency, sweep pass). */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];
/** Jobs or occurrences handled by one sweep pass (a pass takes at most 50 batches of 100 jobs). */
const PER_PASS_BUCKETS = [0, 1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];

export type QueueState = 'waiting' | 'delayed' | 'active';
export type QuotaKind = 'max_jobs' | 'rate' | 'concurrency';
export type ReconcileRepair = 'requeued' | 'takeover' | 'leader_requeue';
/** Which connection reported a Redis error. */
export type RedisSource = 'main' | 'queue' | 'worker';
/** Where a MongoDB error was seen: the driver's heartbeat to a server, or a worker that found it unreachable. */
export type MongoSource = 'heartbeat' | 'worker';

export interface KairosMetricsOptions {
  /** METRICS_TENANT_LABEL: a `tenant` label on the per-execution families (one series per tenant more). */
  tenantLabel: boolean;
}

/** What a queue-depth scrape reads: counts per queue name and state. */
export type QueueDepths = () => Promise<Record<string, Record<QueueState, number>>>;

/** GraphQL operation names kept as label values; past this many distinct names a process reports `other`. */
const MAX_OPERATION_NAMES = 200;
const OPERATION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/**
 * Why a GraphQL operation is counted without its name: it came without a valid credential, or its
 * document did not validate (or did not contain the operation it named).
 */
export type UnnamedOperation = 'unauthenticated' | 'invalid';
/** The `operation` label's own values: a client's name equal to one is counted as `other`. */
const FIXED_OPERATION_LABELS = new Set(['anonymous', 'other', 'unauthenticated', 'invalid']);

/**
 * Every metric family of Kairos, in one registry of its own (never prom-client's global one), made
 * once by the composition root and handed to the parts that record. No label takes a job or
 * execution id, and a tenant only with `tenantLabel`, so the series count stays bounded.
 */
export class KairosMetrics {
  readonly registry = new Registry();
  private readonly tenantLabel: boolean;
  private readonly operationNames = new Set<string>();
  private queueDepths: QueueDepths | null = null;

  readonly executionsFinished: Counter<string>;
  readonly startLag: Histogram<string>;
  readonly attemptDuration: Histogram<string>;
  readonly attempts: Counter<string>;
  readonly retries: Counter<string>;
  readonly takeovers: Counter<string>;
  readonly queueDepth: Gauge<string>;
  readonly sweepDuration: Histogram<string>;
  readonly sweepJobs: Histogram<string>;
  readonly sweepOccurrences: Histogram<string>;
  readonly sweepBehind: Gauge<string>;
  readonly sweepLastPass: Gauge<string>;
  readonly leader: Gauge<string>;
  readonly leadershipChanges: Counter<string>;
  readonly reconcileRepairs: Counter<string>;
  readonly subscriptionsOpen: Gauge<string>;
  readonly subscriptionEvents: Counter<string>;
  readonly graphqlOperations: Counter<string>;
  readonly graphqlDuration: Histogram<string>;
  readonly quotaRefusals: Counter<string>;
  readonly mongoErrors: Counter<string>;
  readonly redisErrors: Counter<string>;

  constructor(options: KairosMetricsOptions) {
    this.tenantLabel = options.tenantLabel;
    const registers = [this.registry];
    const tenant = options.tenantLabel ? ['tenant'] : [];
    this.executionsFinished = new Counter({
      name: 'kairos_executions_finished_total',
      help: 'Executions that reached a final status, by status (SUCCEEDED, FAILED, CANCELLED, SKIPPED) and trigger; counted by the worker that ended them.',
      labelNames: ['status', 'trigger', ...tenant],
      registers,
    });
    this.startLag = new Histogram({
      name: 'kairos_execution_start_lag_seconds',
      help: 'How late a first attempt started after its execution was due (scheduledFor).',
      labelNames: ['trigger', 'workload', ...tenant],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.attemptDuration = new Histogram({
      name: 'kairos_attempt_duration_seconds',
      help: 'Duration of attempts, from claim to recorded end, by outcome.',
      labelNames: ['outcome', 'workload'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.attempts = new Counter({
      name: 'kairos_attempts_total',
      help: 'Attempts ended, by outcome (SUCCEEDED, FAILED, TIMED_OUT, CRASHED, CANCELLED).',
      labelNames: ['outcome', 'workload', ...tenant],
      registers,
    });
    this.retries = new Counter({
      name: 'kairos_retries_total',
      help: 'Executions put back to RETRYING after a failed, timed-out or crashed attempt.',
      labelNames: ['workload'],
      registers,
    });
    this.takeovers = new Counter({
      name: 'kairos_takeovers_total',
      help: 'Lost attempts recorded CRASHED by a worker taking over from one that disappeared.',
      registers,
    });
    const depthsReader = () => this.queueDepths;
    const onRedisError = () => this.redisError('queue');
    this.queueDepth = new Gauge({
      name: 'kairos_queue_depth',
      help: 'Entries in each execution queue by state, read from Redis at scrape time (the same value from every process that reports it).',
      labelNames: ['queue', 'state'],
      registers,
      // `this` is the gauge here (prom-client calls collect on it).
      async collect() {
        const read = depthsReader();
        if (!read) return;
        this.reset();
        try {
          for (const [queue, counts] of Object.entries(await read())) {
            for (const [state, value] of Object.entries(counts)) this.set({ queue, state }, value);
          }
        } catch {
          // An unreachable Redis must not fail the whole scrape; the series are simply absent meanwhile.
          onRedisError();
        }
      },
    });
    this.sweepDuration = new Histogram({
      name: 'kairos_sweep_pass_duration_seconds',
      help: "Duration of the leader's sweep passes.",
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.sweepJobs = new Histogram({
      name: 'kairos_sweep_jobs_per_pass',
      help: 'Due jobs one sweep pass materialised.',
      buckets: PER_PASS_BUCKETS,
      registers,
    });
    this.sweepOccurrences = new Histogram({
      name: 'kairos_sweep_occurrences_per_pass',
      help: 'Executions (occurrences) one sweep pass wrote.',
      buckets: PER_PASS_BUCKETS,
      registers,
    });
    this.sweepBehind = new Gauge({
      name: 'kairos_sweep_behind_seconds',
      help: 'How far the last sweep pass was behind: now minus the earliest cursor of a due job it found (0 when every due job was found ahead of time).',
      registers,
    });
    this.sweepLastPass = new Gauge({
      name: 'kairos_sweep_last_pass_timestamp_seconds',
      help: 'When the last sweep pass of this process ended (Unix seconds).',
      registers,
    });
    this.leader = new Gauge({ name: 'kairos_scheduler_leader', help: '1 while this scheduler holds the leader lease, else 0.', registers });
    this.leadershipChanges = new Counter({
      name: 'kairos_scheduler_leadership_changes_total',
      help: 'Leader lease acquired or lost by this scheduler.',
      labelNames: ['change'],
      registers,
    });
    this.reconcileRepairs = new Counter({
      name: 'kairos_reconcile_repairs_total',
      help: 'Executions re-enqueued by reconcile (requeued: waiting past their time; takeover: RUNNING past their deadline) or by a new leader (leader_requeue).',
      labelNames: ['kind'],
      registers,
    });
    this.subscriptionsOpen = new Gauge({
      name: 'kairos_subscriptions_open',
      help: 'executionUpdated subscriptions open on this api process.',
      registers,
    });
    this.subscriptionEvents = new Counter({
      name: 'kairos_subscription_events_sent_total',
      help: 'Events relayed to subscribers.',
      registers,
    });
    this.graphqlOperations = new Counter({
      name: 'kairos_graphql_operations_total',
      help: 'GraphQL operations over HTTP, by operation name (anonymous; other past 200 distinct names; unauthenticated or invalid without their name), type and first error code (none when it succeeded).',
      labelNames: ['operation', 'type', 'code'],
      registers,
    });
    this.graphqlDuration = new Histogram({
      name: 'kairos_graphql_operation_duration_seconds',
      help: 'Latency of GraphQL operations over HTTP, from request to response.',
      labelNames: ['operation', 'type'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.quotaRefusals = new Counter({
      name: 'kairos_quota_refusals_total',
      help: 'Refusals by quota kind: max_jobs (createJob), rate (maxExecutionsPerMinute), concurrency (an execution waiting for a tenant slot).',
      labelNames: ['kind', ...tenant],
      registers,
    });
    this.mongoErrors = new Counter({
      name: 'kairos_mongodb_errors_total',
      help: 'MongoDB errors: failed server heartbeats, and workers that found MongoDB unreachable.',
      labelNames: ['source'],
      registers,
    });
    this.redisErrors = new Counter({
      name: 'kairos_redis_errors_total',
      help: 'Redis connection errors, by connection.',
      labelNames: ['connection'],
      registers,
    });
    collectDefaultMetrics({ register: this.registry });
    // Zero series for the label values known up front, so a rate() works from the first scrape.
    for (const change of ['acquired', 'lost']) this.leadershipChanges.inc({ change }, 0);
    for (const kind of ['requeued', 'takeover', 'leader_requeue']) this.reconcileRepairs.inc({ kind }, 0);
    for (const source of ['heartbeat', 'worker']) this.mongoErrors.inc({ source }, 0);
    for (const connection of ['main', 'queue', 'worker']) this.redisErrors.inc({ connection }, 0);
    if (!options.tenantLabel) for (const kind of ['max_jobs', 'rate', 'concurrency']) this.quotaRefusals.inc({ kind }, 0);
    this.takeovers.inc(0);
    this.subscriptionEvents.inc(0);
    this.leader.set(0);
  }

  /** The queue-depth gauge reads these at scrape time (processes running the scheduler or worker role). */
  observeQueues(depths: QueueDepths): void {
    this.queueDepths = depths;
  }

  /** The Prometheus text exposition of every family. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** The names of every family in the registry (the dashboard and alert rules may use only these). */
  familyNames(): string[] {
    return this.registry.getMetricsAsArray().map((m) => m.name);
  }

  private withTenant<T extends Record<string, string>>(labels: T, tenantId: string): T & { tenant?: string } {
    return this.tenantLabel ? { ...labels, tenant: tenantId } : labels;
  }

  executionFinished(
    status: Extract<ExecutionStatus, 'SUCCEEDED' | 'FAILED' | 'CANCELLED' | 'SKIPPED'>,
    trigger: ExecutionTrigger | undefined,
    tenantId: string,
  ): void {
    this.executionsFinished.inc(this.withTenant({ status, trigger: trigger ?? 'UNKNOWN' }, tenantId));
  }

  attemptStarted(lagMs: number, trigger: ExecutionTrigger | undefined, workload: Workload, tenantId: string): void {
    this.startLag.observe(this.withTenant({ trigger: trigger ?? 'UNKNOWN', workload }, tenantId), Math.max(0, lagMs) / 1000);
  }

  attemptEnded(outcome: AttemptOutcome, workload: Workload, tenantId: string, durationMs: number | null): void {
    this.attempts.inc(this.withTenant({ outcome, workload }, tenantId));
    if (durationMs !== null) this.attemptDuration.observe({ outcome, workload }, Math.max(0, durationMs) / 1000);
  }

  retried(workload: Workload): void {
    this.retries.inc({ workload });
  }

  tookOver(): void {
    this.takeovers.inc();
  }

  sweepPassed(result: { jobs: number; executions: number; behindMs: number }, durationMs: number, endedAt: Date): void {
    this.sweepDuration.observe(durationMs / 1000);
    this.sweepJobs.observe(result.jobs);
    this.sweepOccurrences.observe(result.executions);
    this.sweepBehind.set(result.behindMs / 1000);
    this.sweepLastPass.set(endedAt.getTime() / 1000);
  }

  leadership(leading: boolean): void {
    this.leader.set(leading ? 1 : 0);
    // A standby sweeps nothing: its last value must not hold up max() across schedulers.
    if (!leading) this.sweepBehind.set(0);
    this.leadershipChanges.inc({ change: leading ? 'acquired' : 'lost' });
  }

  repaired(kind: ReconcileRepair, count: number): void {
    this.reconcileRepairs.inc({ kind }, count);
  }

  subscriptionOpened(): void {
    this.subscriptionsOpen.inc();
  }

  subscriptionClosed(): void {
    this.subscriptionsOpen.dec();
  }

  eventSent(): void {
    this.subscriptionEvents.inc();
  }

  /**
   * One GraphQL operation of an authenticated caller whose document validated. The name is the
   * client's, so it is kept only when it looks like a name and fewer than MAX_OPERATION_NAMES
   * distinct ones were seen: a client cannot grow the series without bound.
   */
  operation(name: string | null | undefined, type: string, code: string, durationMs: number): void {
    this.recordOperation(this.operationLabel(name), type, code, durationMs);
  }

  /**
   * One GraphQL operation counted under `reason` instead of its name, which never takes one of the
   * MAX_OPERATION_NAMES slots: anyone can send a request, and names sent without credentials would
   * fill them and leave the real operations counted as `other`.
   */
  unnamedOperation(reason: UnnamedOperation, type: string, code: string, durationMs: number): void {
    this.recordOperation(reason, type, code, durationMs);
  }

  private recordOperation(operation: string, type: string, code: string, durationMs: number): void {
    this.graphqlOperations.inc({ operation, type, code });
    this.graphqlDuration.observe({ operation, type }, durationMs / 1000);
  }

  private operationLabel(name: string | null | undefined): string {
    if (!name) return 'anonymous';
    if (!OPERATION_NAME.test(name) || FIXED_OPERATION_LABELS.has(name)) return 'other';
    if (this.operationNames.has(name)) return name;
    if (this.operationNames.size >= MAX_OPERATION_NAMES) return 'other';
    this.operationNames.add(name);
    return name;
  }

  quotaRefused(kind: QuotaKind, tenantId: string): void {
    this.quotaRefusals.inc(this.withTenant({ kind }, tenantId));
  }

  mongoError(source: MongoSource): void {
    this.mongoErrors.inc({ source });
  }

  redisError(connection: RedisSource): void {
    this.redisErrors.inc({ connection });
  }
}
