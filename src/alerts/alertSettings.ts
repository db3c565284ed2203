import { ObjectId } from 'mongodb';
import { ALERT_LIMITS, type AlertChannelDoc, type AlertChannelFormat, type AlertRuleDoc, type AlertRuleKind } from '../domain/alert.js';
import { privateLiteralHost } from '../domain/privateAddresses.js';
import { BadUserInputError, NotFoundError, QuotaExceededError } from '../errors/index.js';
import type { ChangeRecorder } from '../changes/changeLog.js';
import type { ChangeAction, ChangeEntry } from '../domain/change.js';
import { toGlobalId } from '../ids/globalId.js';
import type { AlertSettingsStore } from '../store/alertSettingsStore.js';
import type { JobStore } from '../store/jobStore.js';

/** What the alert settings' operations use: the tenant's channels and rules, and where they record each change. */
export interface AlertSettingsDeps {
  settings: AlertSettingsStore;
  changes: ChangeRecorder;
}

/** A channel as the API defines it. */
export interface AlertChannelInput {
  name: string;
  url: string;
  format?: AlertChannelFormat | null;
}

/** A rule as the API defines it; ids already parsed (null: malformed or of another type). */
export interface AlertRuleInput {
  channelId: ObjectId | null;
  /** Undefined: every job; null: an id that did not parse. */
  jobId?: ObjectId | null;
  kind: AlertRuleKind;
  threshold?: number | null;
}

/**
 * Creates a channel after checking its name and URL and the tenant's channel count. Unless
 * `allowPrivate` (ALLOW_PRIVATE_TARGETS), a URL whose host is a private IP literal is refused, as for
 * an HTTP target; a host name is checked when the alert is delivered.
 */
export async function createAlertChannel(
  { settings: store, changes }: AlertSettingsDeps,
  input: AlertChannelInput,
  now: Date,
  allowPrivate: boolean,
): Promise<AlertChannelDoc> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > ALERT_LIMITS.nameLength)
    throw new BadUserInputError(`name must be 1 to ${ALERT_LIMITS.nameLength} characters`, 'name');
  if (input.url.length > ALERT_LIMITS.urlLength)
    throw new BadUserInputError(`url must be at most ${ALERT_LIMITS.urlLength} characters`, 'url');
  let parsed: URL;
  try {
    parsed = new URL(input.url);
  } catch {
    throw new BadUserInputError('url is not a valid URL', 'url');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new BadUserInputError('url must start with http:// or https://', 'url');
  // fetch refuses such a URL at every delivery, quoting it whole in the error every role reads.
  if (parsed.username || parsed.password)
    throw new BadUserInputError('url may not hold a user name or password (user:pass@host); put a token in its path or query', 'url');
  const privateHost = allowPrivate ? null : privateLiteralHost(input.url);
  if (privateHost)
    throw new BadUserInputError(
      `url: ${privateHost} is a private, loopback, link-local or reserved address, which alert channels may not call unless the server runs with ALLOW_PRIVATE_TARGETS=true`,
      'url',
    );
  if ((await store.channels()).length >= ALERT_LIMITS.channelsPerTenant)
    throw new QuotaExceededError(`A tenant may have at most ${ALERT_LIMITS.channelsPerTenant} alert channels`);
  const channel = await store.insertChannel({
    _id: new ObjectId(),
    name,
    url: input.url,
    format: input.format ?? 'KAIROS',
    createdAt: now,
  });
  await changes.record(channelChange('CREATE_ALERT_CHANNEL', null, channel, now));
  return channel;
}

/** Deletes a channel and the rules that use it (each recorded, so their jobs' histories say so); null when the tenant has no such channel. */
export async function deleteAlertChannel(
  { settings, changes }: AlertSettingsDeps,
  id: ObjectId,
  now: Date,
): Promise<AlertChannelDoc | null> {
  const rules = (await settings.rules()).filter((r) => r.channelId.equals(id));
  const deleted = await settings.deleteChannel(id);
  if (!deleted) return null;
  for (const rule of rules) await changes.record(ruleChange('DELETE_ALERT_RULE', rule, null, now));
  await changes.record(channelChange('DELETE_ALERT_CHANNEL', deleted, null, now));
  return deleted;
}

/** Deletes the rules that watch a deleted job, each recorded (they would otherwise count against the tenant's rules for nothing). */
export async function deleteRulesOfJob(
  { settings, changes }: { settings: Pick<AlertSettingsStore, 'deleteRulesOfJob'>; changes: ChangeRecorder },
  jobId: ObjectId,
  now: Date,
): Promise<void> {
  for (const rule of await settings.deleteRulesOfJob(jobId)) await changes.record(ruleChange('DELETE_ALERT_RULE', rule, null, now));
}

/** Deletes a rule; null when the tenant has no such rule. */
export async function deleteAlertRule({ settings, changes }: AlertSettingsDeps, id: ObjectId, now: Date): Promise<AlertRuleDoc | null> {
  const deleted = await settings.deleteRule(id);
  if (deleted) await changes.record(ruleChange('DELETE_ALERT_RULE', deleted, null, now));
  return deleted;
}

/** Creates a rule after checking its channel and job exist in the tenant, its threshold and the tenant's rule count. */
export async function createAlertRule(
  stores: AlertSettingsDeps & { jobs: Pick<JobStore, 'findById'> },
  input: AlertRuleInput,
  ids: { channelId: string; jobId?: string | null },
  now: Date,
): Promise<AlertRuleDoc> {
  const threshold = thresholdOf(input.kind, input.threshold);
  const channels = await stores.settings.channels();
  if (!input.channelId || !channels.some((c) => c._id.equals(input.channelId))) throw new NotFoundError('AlertChannel', ids.channelId);
  if (input.jobId === null || (input.jobId && !(await stores.jobs.findById(input.jobId)))) throw new NotFoundError('Job', ids.jobId ?? '');
  if ((await stores.settings.rules()).length >= ALERT_LIMITS.rulesPerTenant)
    throw new QuotaExceededError(`A tenant may have at most ${ALERT_LIMITS.rulesPerTenant} alert rules`);
  const rule = await stores.settings.insertRule({
    _id: new ObjectId(),
    channelId: input.channelId,
    jobId: input.jobId ?? null,
    kind: input.kind,
    threshold,
    createdAt: now,
  });
  await stores.changes.record(ruleChange('CREATE_ALERT_RULE', null, rule, now));
  return rule;
}

/** The change entry of a channel created or deleted: its name, URL and format (ADMIN-only records, as channels are). */
function channelChange(action: ChangeAction, before: AlertChannelDoc | null, after: AlertChannelDoc | null, at: Date): ChangeEntry {
  const fields = (c: AlertChannelDoc | null) => c && { name: c.name, url: c.url, format: c.format };
  const { _id } = (after ?? before)!;
  return {
    action,
    target: { type: 'ALERT_CHANNEL', id: toGlobalId('AlertChannel', _id) },
    jobId: null,
    before: fields(before),
    after: fields(after),
    at,
  };
}

/** The change entry of a rule created or deleted; in its job's history when it watches one job. */
function ruleChange(action: ChangeAction, before: AlertRuleDoc | null, after: AlertRuleDoc | null, at: Date): ChangeEntry {
  const fields = (r: AlertRuleDoc | null) =>
    r && {
      kind: r.kind,
      threshold: r.threshold,
      channelId: toGlobalId('AlertChannel', r.channelId),
      jobId: r.jobId && toGlobalId('Job', r.jobId),
    };
  const { _id, jobId } = (after ?? before)!;
  return {
    action,
    target: { type: 'ALERT_RULE', id: toGlobalId('AlertRule', _id) },
    jobId,
    before: fields(before),
    after: fields(after),
    at,
  };
}

/** The rule's threshold, checked against its kind: failures in a row, seconds past due, or none (1) for SKIPPED. */
export function thresholdOf(kind: AlertRuleKind, threshold: number | null | undefined): number {
  if (kind === 'SKIPPED') {
    if (threshold !== null && threshold !== undefined) throw new BadUserInputError('A SKIPPED rule takes no threshold', 'threshold');
    return 1;
  }
  const [min, max, what] =
    kind === 'CONSECUTIVE_FAILURES'
      ? [1, ALERT_LIMITS.maxFailures, 'failed executions in a row']
      : [ALERT_LIMITS.minOverdueSeconds, ALERT_LIMITS.maxOverdueSeconds, 'seconds past due'];
  if (threshold === null || threshold === undefined || !Number.isInteger(threshold) || threshold < min || threshold > max)
    throw new BadUserInputError(`A ${kind} rule needs a threshold of ${min} to ${max} ${what}`, 'threshold');
  return threshold;
}
