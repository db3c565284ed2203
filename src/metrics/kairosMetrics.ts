import { Registry, collectDefaultMetrics } from 'prom-client';
import type { AttemptOutcome, ExecutionStatus, ExecutionTrigger } from '../domain/execution.js';
import type { Workload } from '../domain/job.js';
import { apiFamilies } from './apiFamilies.js';
import { connectionFamilies, type QueueDepths } from './connectionFamilies.js';
import { executionFamilies } from './executionFamilies.js';
import { OperationLabels } from './operationLabels.js';
import { schedulerFamilies } from './schedulerFamilies.js';

export type { QueueDepths, QueueState } from './connectionFamilies.js';
export { LATENCY_BUCKETS } from './buckets.js';

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

/**
 * Why a GraphQL operation is counted without its name: it came without a valid credential, or its
 * document did not validate (or did not contain the operation it named).
 */
export type UnnamedOperation = 'unauthenticated' | 'invalid';

/**
 * Every metric family of Kairos, in one registry of its own (never prom-client's global one), made
 * once by the composition root and handed to the parts that record. No label takes a job or
 * execution id, and a tenant only with `tenantLabel`, so the series count stays bounded. The
 * families are defined by area (executionFamilies.ts, schedulerFamilies.ts, apiFamilies.ts,
 * connectionFamilies.ts); the recording methods are here, so a recorder needs only this class.
 */
export class KairosMetrics {
  readonly registry = new Registry();
  private readonly tenantLabel: boolean;
  private readonly operationLabels = new OperationLabels();
  private queueDepths: QueueDepths | null = null;

  private readonly executions: ReturnType<typeof executionFamilies>;
  private readonly connections: ReturnType<typeof connectionFamilies>;
  private readonly scheduler: ReturnType<typeof schedulerFamilies>;
  private readonly api: ReturnType<typeof apiFamilies>;

  constructor(options: KairosMetricsOptions) {
    this.tenantLabel = options.tenantLabel;
    const registers = [this.registry];
    const tenant = options.tenantLabel ? ['tenant'] : [];
    this.executions = executionFamilies(registers, tenant);
    this.connections = connectionFamilies(
      registers,
      () => this.queueDepths,
      () => this.redisError('queue'),
    );
    this.scheduler = schedulerFamilies(registers);
    this.api = apiFamilies(registers, tenant);
    collectDefaultMetrics({ register: this.registry });
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
    this.executions.executionsFinished.inc(this.withTenant({ status, trigger: trigger ?? 'UNKNOWN' }, tenantId));
  }

  attemptStarted(lagMs: number, trigger: ExecutionTrigger | undefined, workload: Workload, tenantId: string): void {
    this.executions.startLag.observe(this.withTenant({ trigger: trigger ?? 'UNKNOWN', workload }, tenantId), Math.max(0, lagMs) / 1000);
  }

  attemptEnded(outcome: AttemptOutcome, workload: Workload, tenantId: string, durationMs: number | null): void {
    this.executions.attempts.inc(this.withTenant({ outcome, workload }, tenantId));
    if (durationMs !== null) this.executions.attemptDuration.observe({ outcome, workload }, Math.max(0, durationMs) / 1000);
  }

  retried(workload: Workload): void {
    this.executions.retries.inc({ workload });
  }

  tookOver(): void {
    this.executions.takeovers.inc();
  }

  sweepPassed(result: { jobs: number; executions: number; behindMs: number }, durationMs: number, endedAt: Date): void {
    this.scheduler.sweepDuration.observe(durationMs / 1000);
    this.scheduler.sweepJobs.observe(result.jobs);
    this.scheduler.sweepOccurrences.observe(result.executions);
    this.scheduler.sweepBehind.set(result.behindMs / 1000);
    this.scheduler.sweepLastPass.set(endedAt.getTime() / 1000);
  }

  leadership(leading: boolean): void {
    this.scheduler.leader.set(leading ? 1 : 0);
    // A standby sweeps nothing: its last value must not hold up max() across schedulers.
    if (!leading) this.scheduler.sweepBehind.set(0);
    this.scheduler.leadershipChanges.inc({ change: leading ? 'acquired' : 'lost' });
  }

  repaired(kind: ReconcileRepair, count: number): void {
    this.scheduler.reconcileRepairs.inc({ kind }, count);
  }

  subscriptionOpened(): void {
    this.api.subscriptionsOpen.inc();
  }

  subscriptionClosed(): void {
    this.api.subscriptionsOpen.dec();
  }

  eventSent(): void {
    this.api.subscriptionEvents.inc();
  }

  /** One GraphQL operation of an authenticated caller whose document validated, under its name as OperationLabels bounds it. */
  operation(name: string | null | undefined, type: string, code: string, durationMs: number): void {
    this.recordOperation(this.operationLabels.of(name), type, code, durationMs);
  }

  /**
   * One GraphQL operation counted under `reason` instead of its name, which never takes one of the
   * bounded name slots: anyone can send a request, and names sent without credentials would fill
   * them and leave the real operations counted as `other`.
   */
  unnamedOperation(reason: UnnamedOperation, type: string, code: string, durationMs: number): void {
    this.recordOperation(reason, type, code, durationMs);
  }

  private recordOperation(operation: string, type: string, code: string, durationMs: number): void {
    this.api.graphqlOperations.inc({ operation, type, code });
    this.api.graphqlDuration.observe({ operation, type }, durationMs / 1000);
  }

  quotaRefused(kind: QuotaKind, tenantId: string): void {
    this.api.quotaRefusals.inc(this.withTenant({ kind }, tenantId));
  }

  mongoError(source: MongoSource): void {
    this.connections.mongoErrors.inc({ source });
  }

  redisError(connection: RedisSource): void {
    this.connections.redisErrors.inc({ connection });
  }
}
