import { BSON, ObjectId } from 'mongodb';
import type { AlertEventBus } from '../events/alertEventBus.js';
import type { Clock } from '../clock.js';
import type { ActiveAlertRule, AlertDoc, AlertState } from '../domain/alert.js';
import type { AlertableEnd, AlertSink } from '../domain/alertSink.js';
import { errorMessage, type Logger } from '../logger.js';
import type { RateLimiter } from '../quotas/rateLimiter.js';
import type { AlertRecords } from '../store/alertRecords.js';
import type { AlertEvent, AlertStates } from './alertStates.js';

const { EJSON } = BSON;

/** The rate bucket of a tenant's delivered alerts (quotas/rateLimiter.ts: `rate:alerts:<tenant>`). */
const ALERT_BUCKET = 'alerts';

export interface AlertEvaluatorDeps {
  records: Pick<AlertRecords, 'rulesOf' | 'insert'>;
  states: Pick<AlertStates, 'apply'>;
  rateLimiter: Pick<RateLimiter, 'takeUpTo'>;
  /** Queues the delivery of raised alerts (alertDeliveries.ts). */
  deliveries: { enqueue(alerts: readonly AlertDoc[]): Promise<void> };
  /** Announces every alert recorded (the `alertRaised` subscription's bus); optional. */
  announce?: Pick<AlertEventBus, 'publish'>;
  clock: Clock;
  logger: Logger;
}

export interface AlertEvaluatorOptions {
  /** ALERT_RULES_CACHE_MS: how long a tenant's rules are kept before they are read again. */
  rulesCacheMs: number;
  /** ALERTS_PER_MINUTE: alerts one tenant may have delivered a minute. */
  perMinute: number;
}

/** An overdue queue entry, as the leader's check found it (overdueCheck.ts). */
export interface OverdueEntry {
  tenantId: string;
  jobId: string;
  executionId: string;
  /** When it was due. */
  dueAt: Date;
}

/**
 * The alert evaluator (an AlertSink): the transitions tell it of executions' ends, the leader's
 * overdue check of late entries. For a tenant without rules it costs a cached lookup (the rules are
 * read once per ALERT_RULES_CACHE_MS per process, two small reads); for a job with rules, one Redis
 * script call (alertStates.ts). MongoDB is written only when a rule's state changes: the alert's
 * record (one insert), then its delivery is queued. Never throws and never makes the caller wait:
 * an evaluation that fails is logged (the execution stands; that alert is lost).
 */
export class AlertEvaluator implements AlertSink {
  private readonly cache = new Map<string, { readAt: number; rules: Promise<ActiveAlertRule[]> }>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly deps: AlertEvaluatorDeps,
    private readonly options: AlertEvaluatorOptions,
  ) {}

  ended(end: AlertableEnd): void {
    // Every rule of the job: a run also ends its skip and overdue states (the script keeps to each rule's kind).
    this.track(this.evaluate(end.tenantId, end.jobId, end.status, () => true, end.executionId, end.reason));
  }

  /** An entry still waiting past its due time: raises OVERDUE for the rules whose threshold it passed. */
  overdue(entry: OverdueEntry, now: Date): Promise<void> {
    const lateMs = now.getTime() - entry.dueAt.getTime();
    const reason = `due at ${entry.dueAt.toISOString()}, not started ${Math.floor(lateMs / 1000)} s later`;
    return this.evaluate(
      entry.tenantId,
      entry.jobId,
      'OVERDUE',
      (r) => r.kind === 'OVERDUE' && r.threshold * 1000 <= lateMs,
      entry.executionId,
      reason,
    );
  }

  /** The smallest OVERDUE threshold (ms) of the job's rules, or null when it has none: whether an entry of it is worth watching. */
  async overdueThresholdMs(tenantId: string, jobId: string): Promise<number | null> {
    const rules = (await this.rulesFor(tenantId, jobId)).filter((r) => r.rule.kind === 'OVERDUE');
    return rules.length === 0 ? null : Math.min(...rules.map((r) => r.rule.threshold * 1000));
  }

  /** Waits for the evaluations in flight (the process is stopping). */
  async close(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async evaluate(
    tenantId: string,
    jobId: string,
    event: AlertEvent,
    applies: (rule: ActiveAlertRule['rule']) => boolean,
    executionId: string,
    reason: string | null,
  ): Promise<void> {
    try {
      const rules = (await this.rulesFor(tenantId, jobId)).filter((r) => applies(r.rule));
      if (rules.length === 0) return;
      const changed = await this.deps.states.apply(
        tenantId,
        jobId,
        event,
        rules.map((r) => r.rule),
      );
      if (changed.length === 0) return;
      const byId = new Map(rules.map((r) => [r.rule._id.toHexString(), r]));
      const now = this.deps.clock();
      const alerts = changed.flatMap(({ ruleId, state }) => {
        const active = byId.get(ruleId);
        return active ? [alertDoc(active, jobId, executionId, state, reasonOf(state, active, reason), now)] : [];
      });
      await this.raise(tenantId, alerts);
    } catch (error) {
      this.deps.logger.warn('could not evaluate alert rules', { tenantId, jobId, event, error: errorMessage(error) });
    }
  }

  /** Records the alerts (those past the tenant's rate RATE_LIMITED, not sent), queues the others' delivery and announces them. */
  private async raise(tenantId: string, alerts: AlertDoc[]): Promise<void> {
    const allowed = await this.deps.rateLimiter.takeUpTo(ALERT_BUCKET, tenantId, this.options.perMinute, alerts.length);
    alerts.slice(allowed).forEach((a) => (a.delivery.status = 'RATE_LIMITED'));
    await this.deps.records.insert(alerts);
    // A notification only (the record is written): a failed publish is logged, the delivery still queued.
    await this.deps.announce
      ?.publish(alerts.map((a) => ({ tenantId: a.tenantId, alert: EJSON.stringify(a) })))
      .catch((error: unknown) => this.deps.logger.warn('could not announce alerts', { tenantId, error: errorMessage(error) }));
    await this.deps.deliveries.enqueue(alerts.slice(0, allowed));
  }

  private async rulesFor(tenantId: string, jobId: string): Promise<ActiveAlertRule[]> {
    const now = this.deps.clock().getTime();
    let cached = this.cache.get(tenantId);
    if (!cached || now - cached.readAt >= this.options.rulesCacheMs) {
      const rules = this.deps.records.rulesOf(tenantId);
      cached = { readAt: now, rules };
      this.cache.set(tenantId, cached);
      // A failed read is not kept: the next end reads again.
      rules.catch(() => this.cache.delete(tenantId));
    }
    return (await cached.rules).filter((r) => r.rule.jobId === null || r.rule.jobId.toHexString() === jobId);
  }
}

function reasonOf(state: AlertState, active: ActiveAlertRule, reason: string | null): string {
  if (state === 'FAILING') return `${active.rule.threshold} consecutive failed execution${active.rule.threshold === 1 ? '' : 's'}`;
  if (state === 'RECOVERED') return 'succeeded after failing';
  return reason ?? state.toLowerCase();
}

function alertDoc(active: ActiveAlertRule, jobId: string, executionId: string, state: AlertState, reason: string, now: Date): AlertDoc {
  const { rule, channel } = active;
  return {
    _id: new ObjectId(),
    tenantId: rule.tenantId,
    ruleId: rule._id,
    channelId: channel._id,
    jobId: new ObjectId(jobId),
    executionId: new ObjectId(executionId),
    kind: rule.kind,
    state,
    reason,
    raisedAt: now,
    channel: { url: channel.url, format: channel.format },
    delivery: { status: 'PENDING', attempts: 0, statusCode: null, error: null, deliveredAt: null },
  };
}
