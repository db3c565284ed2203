import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { JobExclusionsDocument } from '../api/generated.js';
import {
  asKairosError,
  documents,
  type CreateJobInput,
  type Job,
  type KairosError,
  type ScheduleInput,
  type UpdateJobInput,
} from '../api/client.js';
import type { Schedule, Target } from '../api/types.js';
import { Card, ErrorBanner } from '../components.js';
import { absolute, labelsText, parseLabelsText } from '../format.js';
import { navigate, useDebounced, useQuery } from '../hooks.js';
import { useSession } from '../session.js';
import { OccurrenceList } from './JobPage.js';

type Kind = 'cron' | 'interval' | 'once';

/** The form's state: strings, as typed. */
interface Draft {
  name: string;
  description: string;
  kind: Kind;
  cron: string;
  timezone: string;
  intervalSeconds: string;
  runAt: string;
  targetKind: 'handler' | 'http';
  handler: string;
  url: string;
  method: string;
  payload: string;
  maxAttempts: string;
  timeoutSeconds: string;
  overlapPolicy: string;
  /** Flow control: an empty key is the target's; both limits empty is none. */
  flowKey: string;
  flowMaxConcurrent: string;
  flowMaxPerMinute: string;
  /** The exclusions as a JSON array of ExclusionInput; empty is none. */
  exclusions: string;
  /** `key=value, …` (format.ts, parseLabelsText). */
  labels: string;
  externalId: string;
  paused: boolean;
}

const EMPTY: Draft = {
  name: '',
  description: '',
  kind: 'cron',
  cron: '*/5 * * * *',
  timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
  intervalSeconds: '60',
  runAt: '',
  targetKind: 'handler',
  handler: 'noop',
  url: 'https://',
  method: 'POST',
  payload: '',
  maxAttempts: '3',
  timeoutSeconds: '60',
  overlapPolicy: 'ALLOW',
  flowKey: '',
  flowMaxConcurrent: '',
  flowMaxPerMinute: '',
  exclusions: '',
  labels: '',
  externalId: '',
  paused: false,
};

function fromJob(job: Job): Draft {
  const s = job.schedule;
  return {
    ...EMPTY,
    name: job.name,
    description: job.description ?? '',
    kind: s.kind === 'CRON' ? 'cron' : s.kind === 'INTERVAL' ? 'interval' : 'once',
    cron: s.cron ?? EMPTY.cron,
    timezone: s.timezone,
    intervalSeconds: String(s.intervalSeconds ?? 60),
    runAt: s.runAt ? toLocalInput(s.runAt) : '',
    targetKind: job.target.__typename === 'HttpTarget' ? 'http' : 'handler',
    handler: job.target.__typename === 'HandlerTarget' ? job.target.handler : 'noop',
    url: job.target.__typename === 'HttpTarget' ? job.target.url : 'https://',
    method: job.target.__typename === 'HttpTarget' ? job.target.method : 'POST',
    payload: job.payload === null || job.payload === undefined ? '' : JSON.stringify(job.payload, null, 2),
    maxAttempts: String(job.retryPolicy.maxAttempts),
    timeoutSeconds: String(job.timeoutSeconds),
    overlapPolicy: job.overlapPolicy,
    flowKey: job.flowControl && !job.flowControl.keyFromTarget ? job.flowControl.key : '',
    flowMaxConcurrent: String(job.flowControl?.maxConcurrent ?? ''),
    flowMaxPerMinute: String(job.flowControl?.maxPerMinute ?? ''),
    labels: labelsText(job.labels),
    externalId: job.externalId ?? '',
  };
}

/** Flow control as the API takes it (replaced whole by updateJob): null when both limits are empty. */
function flowControlInput(d: Draft): Record<string, unknown> | null {
  const limit = (text: string) => (text.trim() === '' ? null : Number(text));
  const maxConcurrent = limit(d.flowMaxConcurrent);
  const maxPerMinute = limit(d.flowMaxPerMinute);
  if (maxConcurrent === null && maxPerMinute === null) return null;
  return { key: d.flowKey.trim() || null, maxConcurrent, maxPerMinute };
}

/** `<input type=datetime-local>` wants local "YYYY-MM-DDTHH:mm". */
function toLocalInput(iso: string): string {
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/**
 * The schedule as the API takes it. updateJob replaces a schedule whole, so the settings the form does
 * not show (startAt, endAt, jitterSeconds, and the time zone of a schedule that is not a cron) are
 * sent as `kept` has them: an edit of the cron alone must not drop them.
 */
function scheduleInput(d: Draft, kept: Schedule | null): Record<string, unknown> {
  const hidden = kept
    ? { ...(kept.startAt && { startAt: kept.startAt }), ...(kept.endAt && { endAt: kept.endAt }), jitterSeconds: kept.jitterSeconds }
    : {};
  const timezone = d.timezone.trim() || 'UTC';
  if (d.kind === 'cron') return { cron: d.cron.trim(), timezone, ...hidden };
  const zone = kept ? { timezone } : {};
  if (d.kind === 'interval') return { intervalSeconds: Number(d.intervalSeconds), ...zone, ...hidden };
  return { runAt: d.runAt ? new Date(d.runAt).toISOString() : null, ...zone, ...hidden };
}

/**
 * The target as the API takes it. updateJob replaces a target whole, so an HTTP target's headers (not
 * shown) are sent as `kept` has them; none when the job had no HTTP target, never values the form did not load.
 */
function targetInput(d: Draft, kept: Target | null): Record<string, unknown> {
  if (d.targetKind === 'handler') return { handler: d.handler.trim() };
  const headers = kept?.__typename === 'HttpTarget' ? kept.headers.map(({ name, value }) => ({ name, value })) : [];
  return { http: { url: d.url.trim(), method: d.method, ...(headers.length > 0 && { headers }) } };
}

/** The schedule's settings the form does not show, in words: said beside the fields, since saving keeps them. */
function hiddenScheduleSettings(s: Schedule): string[] {
  const words: string[] = [];
  if (s.startAt) words.push(`starts ${absolute(s.startAt, s.timezone)}`);
  if (s.endAt) words.push(`ends ${absolute(s.endAt, s.timezone)}`);
  if (s.jitterSeconds > 0) words.push(`jitter up to ${s.jitterSeconds} s`);
  return words;
}

/** The draft fields each part of a job's input is made from: the part is sent when one of them changed. */
const SCHEDULE_FIELDS: Record<Kind, (keyof Draft)[]> = {
  cron: ['kind', 'cron', 'timezone'],
  interval: ['kind', 'intervalSeconds'],
  once: ['kind', 'runAt'],
};
const TARGET_FIELDS: Record<Draft['targetKind'], (keyof Draft)[]> = {
  handler: ['targetKind', 'handler'],
  http: ['targetKind', 'url', 'method'],
};

/**
 * The input of createJob (`loaded` null: every field of the form), or of updateJob: only the parts of
 * `loaded` the user changed, so what the form does not show (workload, misfire policy, the rest of the
 * retry policy) or what someone else changed meanwhile is left as it is.
 */
function jobInput(d: Draft, loaded: Job | null, payload: unknown, exclusions: { was: string; now: unknown }): Record<string, unknown> {
  const was = loaded ? { ...fromJob(loaded), exclusions: exclusions.was } : null;
  const changed = (...keys: (keyof Draft)[]) => !was || keys.some((key) => d[key] !== was[key]);
  const input: Record<string, unknown> = {};
  if (changed('name')) input.name = d.name;
  if (changed('description')) input.description = d.description || null;
  if (changed(...SCHEDULE_FIELDS[d.kind])) input.schedule = scheduleInput(d, loaded?.schedule ?? null);
  if (changed(...TARGET_FIELDS[d.targetKind])) input.target = targetInput(d, loaded?.target ?? null);
  if (changed('payload')) input.payload = payload;
  if (changed('timeoutSeconds')) input.timeoutSeconds = Number(d.timeoutSeconds);
  // Merged field by field into the job's retry policy by updateJob.
  if (changed('maxAttempts')) input.retryPolicy = { maxAttempts: Number(d.maxAttempts) };
  if (changed('overlapPolicy')) input.overlapPolicy = d.overlapPolicy;
  if (changed('flowKey', 'flowMaxConcurrent', 'flowMaxPerMinute') && (loaded || flowControlInput(d)))
    input.flowControl = flowControlInput(d);
  if (changed('exclusions') && (loaded || exclusions.now !== null)) input.exclusions = exclusions.now;
  // Replaced whole by updateJob: the labels as typed, none when emptied.
  if (changed('labels')) input.labels = parseLabelsText(d.labels);
  if (changed('externalId') && (loaded || d.externalId.trim())) input.externalId = d.externalId.trim() || null;
  if (!loaded && d.paused) input.paused = true;
  return input;
}

/** Create (no `id`) or edit a job; the API's validation errors are shown next to their field. */
export function JobForm({ id }: { id?: string }) {
  const { client } = useSession();
  const existing = useQuery(documents.JobDocument, { id: id ?? '' }, Boolean(id));
  const [draft, setDraft] = useState<Draft>(EMPTY);
  // The job as loaded: an update sends only what differs from it.
  const [loaded, setLoaded] = useState<Job | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<KairosError | null>(null);
  const [saving, setSaving] = useState(false);
  // The exclusions as loaded, as the field shows them: an update sends them only when they differ.
  const loadedExclusions = useQuery(JobExclusionsDocument, { id: id ?? '' }, Boolean(id));
  const exclusionsText = exclusionsJson(loadedExclusions.data?.job?.exclusions ?? []);
  useEffect(() => {
    if (!id || !existing.data?.job || !loadedExclusions.data) return;
    setLoaded(existing.data.job);
    setDraft({ ...fromJob(existing.data.job), exclusions: exclusionsText });
  }, [id, existing.data, loadedExclusions.data]);

  // Editing a field takes back the error the last submit showed for it: it may be fixed now.
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    const stale: string[] = [key, ...(ERRORS_OF[key] ?? [])];
    setErrors((current) =>
      stale.some((k) => k in current) ? Object.fromEntries(Object.entries(current).filter(([k]) => !stale.includes(k))) : current,
    );
  };

  // The schedule preview follows the schedule fields as they are typed.
  const schedule = useDebounced(JSON.stringify(scheduleInput(draft, loaded?.schedule ?? null)), 300);
  const [preview, setPreview] = useState<{ times: { at: string; local: string }[] | null; error: string | null }>({
    times: null,
    error: null,
  });
  useEffect(() => {
    let current = true;
    client.previewSchedule(JSON.parse(schedule) as ScheduleInput, 5).then(
      (times) => current && setPreview({ times, error: null }),
      (error: unknown) => current && setPreview({ times: null, error: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      current = false;
    };
  }, [schedule]);

  const submit = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setFormError(null);
    // Until the job is loaded the form holds defaults, not the job: saving them would overwrite it.
    if (id && !loaded) return;
    let payload: unknown = null;
    if (draft.payload.trim()) {
      try {
        payload = JSON.parse(draft.payload);
      } catch {
        setErrors({ payload: 'Not valid JSON' });
        return;
      }
    }
    let exclusions: unknown = null;
    if (draft.exclusions.trim()) {
      try {
        exclusions = JSON.parse(draft.exclusions);
      } catch {
        setErrors({ exclusions: 'Not valid JSON: a list such as [{"name": "Weekend", "cron": "0 0 * * 6", "durationSeconds": 172800}]' });
        return;
      }
    }
    const input = jobInput(draft, loaded, payload, { was: exclusionsText, now: exclusions });
    setSaving(true);
    try {
      if (id) {
        // The input is built field by field as the API takes it (jobInput); the API validates it.
        await client.updateJob({ id, ...input } as UpdateJobInput);
        navigate(`/jobs/${id}`);
      } else {
        const created = await client.createJob(input as CreateJobInput);
        navigate(`/jobs/${created.id}`);
      }
    } catch (error) {
      const e = asKairosError(error);
      const field = e.details.field;
      if (typeof field === 'string') setErrors({ [fieldKey(field)]: e.message });
      else setFormError(e);
    } finally {
      setSaving(false);
    }
  };

  if (id && existing.data && !existing.data.job)
    return (
      <main class="page">
        <div class="banner banner-error">This job does not exist.</div>
      </main>
    );

  return (
    <main class="page narrow">
      <nav class="crumbs">
        <a href="#/jobs">Jobs</a> / <span>{id ? 'Edit' : 'New job'}</span>
      </nav>
      <form class="form" onSubmit={(e) => void submit(e)} noValidate>
        <Card title={id ? `Edit ${existing.data?.job?.name ?? ''}` : 'New job'}>
          <ErrorBanner error={formError} />
          <Field label="Name" name="name" error={errors.name}>
            <input id="name" name="name" value={draft.name} onInput={(e) => set('name', e.currentTarget.value)} required />
          </Field>
          <Field label="Description" name="description" error={errors.description}>
            <input
              id="description"
              name="description"
              value={draft.description}
              onInput={(e) => set('description', e.currentTarget.value)}
            />
          </Field>

          <fieldset class="field">
            <legend>Schedule</legend>
            <div class="segmented" role="radiogroup">
              {(['cron', 'interval', 'once'] as Kind[]).map((k) => (
                <label class={draft.kind === k ? 'on' : ''}>
                  <input type="radio" name="kind" value={k} checked={draft.kind === k} onChange={() => set('kind', k)} />
                  {k === 'cron' ? 'Cron' : k === 'interval' ? 'Every…' : 'Once'}
                </label>
              ))}
            </div>
            {draft.kind === 'cron' && (
              <div class="row">
                <Field label="Cron expression" name="cron" error={errors.cron} hint="5 fields, or 6 with seconds first">
                  <input id="cron" name="cron" class="mono" value={draft.cron} onInput={(e) => set('cron', e.currentTarget.value)} />
                </Field>
                <Field label="Time zone" name="timezone" error={errors.timezone}>
                  <input id="timezone" name="timezone" value={draft.timezone} onInput={(e) => set('timezone', e.currentTarget.value)} />
                </Field>
              </div>
            )}
            {draft.kind === 'interval' && (
              <Field label="Interval (seconds)" name="intervalSeconds" error={errors.intervalSeconds}>
                <input
                  id="intervalSeconds"
                  name="intervalSeconds"
                  type="number"
                  min={1}
                  value={draft.intervalSeconds}
                  onInput={(e) => set('intervalSeconds', e.currentTarget.value)}
                />
              </Field>
            )}
            {draft.kind === 'once' && (
              <Field label="Run at (your local time)" name="runAt" error={errors.runAt}>
                <input
                  id="runAt"
                  name="runAt"
                  type="datetime-local"
                  value={draft.runAt}
                  onInput={(e) => set('runAt', e.currentTarget.value)}
                />
              </Field>
            )}
            {errors.schedule && <p class="field-error">{errors.schedule}</p>}
            {loaded && hiddenScheduleSettings(loaded.schedule).length > 0 && (
              <p class="hint" data-testid="kept-schedule">
                Kept as they are: {hiddenScheduleSettings(loaded.schedule).join(', ')}.
              </p>
            )}
            <div class="preview" data-testid="schedule-preview">
              <span class="muted small">Next occurrences</span>
              <OccurrenceList
                times={preview.times}
                timeZone={draft.kind === 'cron' ? draft.timezone || 'UTC' : 'UTC'}
                error={preview.error}
              />
            </div>
          </fieldset>

          <fieldset class="field">
            <legend>Target</legend>
            <div class="segmented" role="radiogroup">
              <label class={draft.targetKind === 'handler' ? 'on' : ''}>
                <input
                  type="radio"
                  name="targetKind"
                  value="handler"
                  checked={draft.targetKind === 'handler'}
                  onChange={() => set('targetKind', 'handler')}
                />
                Handler
              </label>
              <label class={draft.targetKind === 'http' ? 'on' : ''}>
                <input
                  type="radio"
                  name="targetKind"
                  value="http"
                  checked={draft.targetKind === 'http'}
                  onChange={() => set('targetKind', 'http')}
                />
                HTTP
              </label>
            </div>
            {draft.targetKind === 'handler' ? (
              <Field label="Handler" name="handler" error={errors.handler} hint="built in: noop, sleep (payload { ms })">
                <input id="handler" name="handler" value={draft.handler} onInput={(e) => set('handler', e.currentTarget.value)} />
              </Field>
            ) : (
              <div class="row">
                <Field label="Method" name="method">
                  <select id="method" name="method" value={draft.method} onChange={(e) => set('method', e.currentTarget.value)}>
                    {['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => (
                      <option value={m}>{m}</option>
                    ))}
                  </select>
                </Field>
                <Field label="URL" name="url" error={errors.url}>
                  <input id="url" name="url" type="url" value={draft.url} onInput={(e) => set('url', e.currentTarget.value)} />
                </Field>
              </div>
            )}
            {errors.target && <p class="field-error">{errors.target}</p>}
            {draft.targetKind === 'http' && loaded?.target.__typename === 'HttpTarget' && loaded.target.headers.length > 0 && (
              <p class="hint" data-testid="kept-headers">
                Headers kept as they are: {loaded.target.headers.map((h) => h.name).join(', ')}.
              </p>
            )}
          </fieldset>

          <Field label="Payload (JSON)" name="payload" error={errors.payload}>
            <textarea
              id="payload"
              name="payload"
              class="mono"
              rows={3}
              value={draft.payload}
              onInput={(e) => set('payload', e.currentTarget.value)}
              placeholder='{"ms": 2000}'
            />
          </Field>
          <div class="row">
            <Field label="Attempts" name="maxAttempts" error={errors.maxAttempts}>
              <input
                id="maxAttempts"
                name="maxAttempts"
                type="number"
                min={1}
                value={draft.maxAttempts}
                onInput={(e) => set('maxAttempts', e.currentTarget.value)}
              />
            </Field>
            <Field label="Timeout (s)" name="timeoutSeconds" error={errors.timeoutSeconds}>
              <input
                id="timeoutSeconds"
                name="timeoutSeconds"
                type="number"
                min={1}
                value={draft.timeoutSeconds}
                onInput={(e) => set('timeoutSeconds', e.currentTarget.value)}
              />
            </Field>
            <Field label="When still running" name="overlapPolicy">
              <select
                id="overlapPolicy"
                name="overlapPolicy"
                value={draft.overlapPolicy}
                onChange={(e) => set('overlapPolicy', e.currentTarget.value)}
              >
                <option value="ALLOW">run both</option>
                <option value="SKIP">skip the new one</option>
                <option value="BUFFER_ONE">hold one</option>
                <option value="CANCEL_PREVIOUS">cancel the old one</option>
              </select>
            </Field>
          </div>
          <div class="row">
            <Field label="Calls at once per key" name="flowMaxConcurrent" error={errors.flowMaxConcurrent} hint="Empty: no limit">
              <input
                id="flowMaxConcurrent"
                name="flowMaxConcurrent"
                type="number"
                min={1}
                value={draft.flowMaxConcurrent}
                onInput={(e) => set('flowMaxConcurrent', e.currentTarget.value)}
              />
            </Field>
            <Field label="Calls a minute per key" name="flowMaxPerMinute" error={errors.flowMaxPerMinute} hint="Empty: no limit">
              <input
                id="flowMaxPerMinute"
                name="flowMaxPerMinute"
                type="number"
                min={1}
                value={draft.flowMaxPerMinute}
                onInput={(e) => set('flowMaxPerMinute', e.currentTarget.value)}
              />
            </Field>
            <Field
              label="Flow control key"
              name="flowKey"
              error={errors.flowKey}
              hint="Empty: the target's host (jobs calling it share the limits)"
            >
              <input id="flowKey" name="flowKey" value={draft.flowKey} onInput={(e) => set('flowKey', e.currentTarget.value)} />
            </Field>
          </div>
          <Field
            label="Exclusions (JSON)"
            name="exclusions"
            error={errors.exclusions}
            hint='When not to run: [{"from": "2027-12-24", "to": "2027-12-26"}, {"name": "Weekend", "cron": "0 0 * * 6", "durationSeconds": 172800}, {"calendar": "holidays"}]'
          >
            <textarea
              id="exclusions"
              name="exclusions"
              class="mono"
              rows={3}
              value={draft.exclusions}
              onInput={(e) => set('exclusions', e.currentTarget.value)}
            />
          </Field>
          <div class="row">
            <Field label="Labels" name="labels" error={errors.labels} hint="key=value, separated by commas (team=payments, env=prod)">
              <input id="labels" name="labels" value={draft.labels} onInput={(e) => set('labels', e.currentTarget.value)} />
            </Field>
            <Field
              label="External id"
              name="externalId"
              error={errors.externalId}
              hint="Your own id for the job, unique among your jobs; optional"
            >
              <input id="externalId" name="externalId" value={draft.externalId} onInput={(e) => set('externalId', e.currentTarget.value)} />
            </Field>
          </div>
          {!id && (
            <label class="check">
              <input type="checkbox" name="paused" checked={draft.paused} onChange={(e) => set('paused', e.currentTarget.checked)} /> Create
              paused
            </label>
          )}
          <div class="actions end">
            <a class="btn" href={id ? `#/jobs/${id}` : '#/jobs'}>
              Cancel
            </a>
            <button class="btn btn-primary" type="submit" disabled={saving || (Boolean(id) && !loaded)}>
              {id ? 'Save' : 'Create job'}
            </button>
          </div>
        </Card>
      </form>
    </main>
  );
}

/** Errors shown apart from a field's own that a change of that field may also fix. */
const ERRORS_OF: Partial<Record<keyof Draft, string[]>> = {
  kind: ['schedule', 'cron', 'timezone', 'intervalSeconds', 'runAt'],
  cron: ['schedule'],
  intervalSeconds: ['schedule'],
  runAt: ['schedule'],
  targetKind: ['target', 'handler', 'url'],
  handler: ['target'],
  url: ['target'],
  method: ['target'],
};

/** The API names fields by their input path ("schedule.cron", "target.http.url"); the form by its own. */
function fieldKey(field: string): string {
  const known: Record<string, string> = {
    'schedule.cron': 'cron',
    'schedule.timezone': 'timezone',
    'schedule.intervalSeconds': 'intervalSeconds',
    'schedule.runAt': 'runAt',
    'schedule.startAt': 'schedule',
    'target.http.url': 'url',
    'target.http.headers': 'url',
    'target.handler': 'handler',
    'retryPolicy.maxAttempts': 'maxAttempts',
    flowControl: 'flowMaxConcurrent',
    'flowControl.key': 'flowKey',
    'flowControl.maxConcurrent': 'flowMaxConcurrent',
    'flowControl.maxPerMinute': 'flowMaxPerMinute',
  };
  if (field.startsWith('exclusions')) return 'exclusions';
  return known[field] ?? field.split('.')[0]!;
}

function Field({
  label,
  name,
  error,
  hint,
  children,
}: {
  label: string;
  name: string;
  error?: string;
  hint?: string;
  children: ComponentChildren;
}) {
  return (
    <div class={`field ${error ? 'invalid' : ''}`} data-field={name}>
      <label for={name}>{label}</label>
      {children}
      {error ? (
        <p class="field-error" role="alert">
          {error}
        </p>
      ) : (
        hint && <p class="hint">{hint}</p>
      )}
    </div>
  );
}

/** A job's exclusions as the form's JSON field shows them: only the fields each has. */
function exclusionsJson(exclusions: Record<string, unknown>[]): string {
  if (exclusions.length === 0) return '';
  const set = exclusions.map((e) => Object.fromEntries(Object.entries(e).filter(([key, value]) => value !== null && key !== '__typename')));
  return JSON.stringify(set, null, 2);
}
