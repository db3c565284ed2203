import { useState } from 'preact/hooks';
import type { BackfillResult } from './api/client.js';
import { ErrorBanner } from './components.js';
import { absolute } from './format.js';
import { useAction } from './hooks.js';
import { useSession } from './session.js';

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * A job's backfill: a range of whole UTC days, previewed first (backfillJob with dryRun: the
 * occurrences it covers, in the job's zone), then created on a second click. The run button only
 * creates what the preview showed: changing a day discards the preview.
 */
export function BackfillForm({ jobId, timeZone, onCreated }: { jobId: string; timeZone: string; onCreated: () => void }) {
  const { client } = useSession();
  const [from, setFrom] = useState(() => utcDay(Date.now() - 7 * DAY_MS));
  const [to, setTo] = useState(() => utcDay(Date.now()));
  const [preview, setPreview] = useState<BackfillResult | null>(null);
  const [done, setDone] = useState<BackfillResult | null>(null);
  const range = [`${from}T00:00:00Z`, `${to}T00:00:00Z`] as const;
  const dryRun = useAction(async () => {
    setDone(null);
    setPreview(await client.backfillJob(jobId, range[0], range[1], true));
  });
  const run = useAction(async () => setDone(await client.backfillJob(jobId, range[0], range[1], false)), onCreated);
  const change = (set: (day: string) => void) => (e: Event) => {
    set((e.currentTarget as HTMLInputElement).value);
    setPreview(null);
    setDone(null);
  };
  const busy = dryRun.busy || run.busy;
  return (
    <form class="form backfill" data-testid="backfill" onSubmit={(e) => (e.preventDefault(), void dryRun.perform())}>
      <div class="row">
        <div class="field">
          <label for="backfill-from">From (UTC day)</label>
          <input id="backfill-from" name="from" type="date" value={from} onInput={change(setFrom)} />
        </div>
        <div class="field">
          <label for="backfill-to">To (UTC day, excluded)</label>
          <input id="backfill-to" name="to" type="date" value={to} onInput={change(setTo)} />
        </div>
      </div>
      <div class="actions">
        <button type="submit" class="btn" disabled={busy}>
          Preview
        </button>
        {preview && preview.instants.length > 0 && !done && (
          <button type="button" class="btn btn-primary" disabled={busy} onClick={() => void run.perform()} data-testid="backfill-run">
            Backfill {preview.instants.length} occurrences
          </button>
        )}
      </div>
      {preview && (
        <p class="muted small" data-testid="backfill-preview-count">
          {preview.instants.length === 0 ? 'No occurrence in this range' : `${preview.instants.length} occurrences; those that ran already are left alone`}
          {preview.excluded > 0 ? ` (${preview.excluded} excluded by the job's exclusions).` : '.'}
        </p>
      )}
      {preview && preview.instants.length > 0 && (
        <ol class="occurrences" data-testid="backfill-preview">
          {preview.instants.map((t) => (
            <li key={t.at} data-at={t.at}>
              <span>{absolute(t.at, timeZone)}</span>
            </li>
          ))}
        </ol>
      )}
      {done && (
        <p data-testid="backfill-done">
          Created {done.created}, {done.existing ?? 0} had run already
          {done.lastStartAt && `; the last starts at ${absolute(done.lastStartAt, timeZone)}`}.
        </p>
      )}
      <ErrorBanner error={dryRun.error ?? run.error} />
    </form>
  );
}
