import { isDeepStrictEqual } from 'node:util';
import type { FieldChange } from './change.js';

/** What a change record shows in place of a secret. */
export const REDACTED = '<redacted>';

/**
 * Keys whose value is a secret wherever they appear in a recorded object: the tenant's webhook
 * secrets, an API key's secret or hash, any `secret` (an alert channel's signing secret, say). A new
 * secret field under another name must be added here (tests/unit/changeDiff.test.ts).
 */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  'secret',
  'secretHash',
  'webhookSecret',
  'previousWebhookSecret',
  'signingSecret',
]);

/**
 * The fields of `before` and `after` that differ, each with its value before and after as JSON,
 * secrets redacted. Values are compared before redaction, so a changed secret is listed (with
 * `redacted`) even though both sides then read REDACTED; a field absent and one that is null are the
 * same. `before` null: the object was created (every field of `after` is listed); `after` null: it
 * was deleted. Fields are listed in the order they first appear.
 */
export function changedFields(before: Record<string, unknown> | null, after: Record<string, unknown> | null): FieldChange[] {
  const old = before ? (asJson(before) as Record<string, unknown>) : {};
  const now = after ? (asJson(after) as Record<string, unknown>) : {};
  const changes: FieldChange[] = [];
  for (const field of new Set([...Object.keys(old), ...Object.keys(now)])) {
    const was = old[field] ?? null;
    const is = now[field] ?? null;
    if (isDeepStrictEqual(was, is)) continue;
    const [beforeValue, hidBefore] = redact(field, was);
    const [afterValue, hidAfter] = redact(field, is);
    changes.push({ field, before: beforeValue, after: afterValue, redacted: hidBefore || hidAfter });
  }
  return changes;
}

/**
 * `value` as plain JSON: Dates as ISO strings, ObjectIds as hex, undefined object fields dropped
 * (and undefined alone as null), so that what is compared is what is stored and shown.
 */
export function asJson(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(asJson);
  if (typeof value === 'object') {
    const hex = (value as { toHexString?: unknown }).toHexString;
    if (typeof hex === 'function') return (hex as () => string).call(value);
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, asJson(v)]),
    );
  }
  return value;
}

/**
 * `value` (the value of `key`) with its secrets replaced by REDACTED, and whether any was: the value
 * of a SECRET_KEYS key, and every HTTP header's value (where a target's credentials live; VIEWERs
 * read none of them either, see headerVisibility.ts), at any depth.
 */
export function redact(key: string, value: unknown): [unknown, boolean] {
  if (value === null) return [null, false];
  if (SECRET_KEYS.has(key)) return [REDACTED, true];
  if (key === 'headers' && Array.isArray(value)) {
    const hidden = value.map((h: unknown) => (isHeader(h) ? { ...h, value: REDACTED } : h));
    return [hidden, value.some(isHeader)];
  }
  if (Array.isArray(value)) {
    const parts = value.map((v) => redact('', v));
    return [parts.map(([v]) => v), parts.some(([, hid]) => hid)];
  }
  if (typeof value === 'object') {
    let hid = false;
    const out = Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => {
        const [r, h] = redact(k, v);
        hid ||= h;
        return [k, r];
      }),
    );
    return [out, hid];
  }
  return [value, false];
}

function isHeader(value: unknown): value is { name: unknown; value: unknown } {
  return typeof value === 'object' && value !== null && 'name' in value && 'value' in value;
}
