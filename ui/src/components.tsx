import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { KairosError } from './api/client.js';
import { absolute, relative } from './format.js';

/** Small building blocks shared by the pages. */

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status.toLowerCase()}`} data-status={status}>{status}</span>;
}

/** A job's labels as small `key=value` chips; nothing when it has none. */
export function Labels({ labels }: { labels: readonly { key: string; value: string }[] }) {
  if (labels.length === 0) return null;
  return (
    <span class="labels" data-testid="labels">
      {labels.map(({ key, value }) => (
        <span class="label-chip" key={key}>
          {key}={value}
        </span>
      ))}
    </span>
  );
}

/** "in 5 min" with the absolute time under it (and as the tooltip). */
export function When({ iso, now, timeZone }: { iso: string | null | undefined; now: number; timeZone?: string }) {
  if (!iso) return <span class="muted">—</span>;
  const full = absolute(iso, timeZone);
  return (
    <span class="when" title={`${full}${timeZone ? ` (${timeZone})` : ''}`}>
      <span>{relative(iso, now)}</span>
      <small class="muted">{full}</small>
    </span>
  );
}

export function ErrorBanner({ error }: { error: KairosError | null }) {
  if (!error) return null;
  return (
    <div class="banner banner-error" role="alert">
      <strong>{error.code === 'FORBIDDEN' ? 'Not allowed' : error.code === 'NETWORK_ERROR' ? 'Offline' : 'Error'}:</strong> {error.message}
    </div>
  );
}

export function Card({ title, actions, children, class: className }: { title?: ComponentChildren; actions?: ComponentChildren; children: ComponentChildren; class?: string }) {
  return (
    <section class={`card ${className ?? ''}`}>
      {(title || actions) && (
        <header class="card-head">
          {title && <h2>{title}</h2>}
          {actions && <div class="actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}

/** A destructive button that asks once more, inline, before acting. */
export function ConfirmButton({ label, question, onConfirm, busy }: { label: string; question: string; onConfirm: () => void; busy?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button class="btn btn-danger" disabled={busy} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button class="btn btn-danger" onClick={() => (setAsking(false), onConfirm())}>
        Yes, {label.toLowerCase()}
      </button>
      <button class="btn" onClick={() => setAsking(false)}>
        No
      </button>
    </span>
  );
}

/** Shows a secret the API reveals only once, with a copy button. */
export function SecretOnce({ label, secret, onDismiss }: { label: string; secret: string; onDismiss: () => void }) {
  return (
    <div class="banner banner-secret" role="status">
      <p>
        <strong>{label}</strong> — shown only this once; store it now.
      </p>
      <code class="secret" data-testid="secret">{secret}</code>
      <div class="actions">
        <button class="btn" onClick={() => void navigator.clipboard?.writeText(secret)}>
          Copy
        </button>
        <button class="btn" onClick={onDismiss}>
          Done
        </button>
      </div>
    </div>
  );
}

export function Pager({ hasPrevious, hasNext, onPrevious, onNext }: { hasPrevious: boolean; hasNext: boolean; onPrevious: () => void; onNext: () => void }) {
  if (!hasPrevious && !hasNext) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button class="btn" disabled={!hasPrevious} onClick={onPrevious}>
        ← Newer
      </button>
      <button class="btn" disabled={!hasNext} onClick={onNext}>
        Older →
      </button>
    </nav>
  );
}

/** Cursor paging state for a connection: which page to ask for next. */
export interface PageRequest {
  first?: number;
  after?: string;
  last?: number;
  before?: string;
}

export function usePaging(size: number) {
  const [page, setPage] = useState<PageRequest>({ first: size });
  return {
    page,
    reset: () => setPage({ first: size }),
    next: (endCursor: string | null) => endCursor && setPage({ first: size, after: endCursor }),
    previous: (startCursor: string | null) => startCursor && setPage({ last: size, before: startCursor }),
  };
}
