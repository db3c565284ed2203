import { readFileSync } from 'node:fs';
import type { AlertRuleDoc, AlertState } from '../domain/alert.js';
import type { RedisClient } from '../redis/redisClient.js';

const ALERT_STATE = readFileSync(new URL('./lua/alertState.lua', import.meta.url), 'utf8');

/** A job's state is forgotten after this long untouched (a job deleted, or failing without rules any more). */
const STATE_TTL_MS = 30 * 86_400_000;

/** What changes a job's alert state. */
export type AlertEvent = 'FAILED' | 'SUCCEEDED' | 'SKIPPED' | 'OVERDUE';

/**
 * Each job's alert state in Redis (`alert:{<tenant>/<job>}`, one hash; lua/alertState.lua): its
 * streak of consecutive failed executions and which of its rules alerted, so that one state sends
 * one alert. Kept only for jobs that have rules, changed by one script call per event (no MongoDB
 * statement). Redis may lose it: the streak then starts again from zero, so a failing job alerts
 * again after its rule's N further failures, and the recovery of a failure alerted before the loss
 * is not sent; a skip or overdue state alerts again at its next occurrence.
 */
export class AlertStates {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** Applies `event` to the job's state under `rules`; the rules whose state changed, with their new state. */
  async apply(
    tenantId: string,
    jobId: string,
    event: AlertEvent,
    rules: readonly Pick<AlertRuleDoc, '_id' | 'kind' | 'threshold'>[],
  ): Promise<{ ruleId: string; state: AlertState }[]> {
    const args = rules.flatMap((r) => [r._id.toHexString(), r.kind, String(r.threshold)]);
    const raw = (await this.redis.eval(
      ALERT_STATE,
      1,
      `${this.prefix}:alert:{${tenantId}/${jobId}}`,
      event,
      STATE_TTL_MS,
      ...args,
    )) as string[];
    const changed: { ruleId: string; state: AlertState }[] = [];
    for (let i = 0; i < raw.length; i += 2) changed.push({ ruleId: raw[i], state: raw[i + 1] as AlertState });
    return changed;
  }
}
