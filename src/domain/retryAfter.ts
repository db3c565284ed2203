/**
 * The longest wait a receiver's `Retry-After` is obeyed for: one hour. A longer ask is cut to it, so
 * one answer cannot park an execution for days; the policy's backoff still applies when it is longer.
 */
export const MAX_RETRY_AFTER_SECONDS = 3600;

/** The answers whose `Retry-After` says when to try again (RFC 9110: 429 Too Many Requests, 503 Service Unavailable). */
export const RETRY_AFTER_STATUSES: readonly number[] = [429, 503];

const DELAY_SECONDS = /^\d+$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = MONTHS.join('|');
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
// RFC 9110 5.6.7: the preferred IMF-fixdate and the two obsolete forms a recipient must still accept.
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (${MONTH}) ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

/**
 * The wait a `Retry-After` value asks for, in whole seconds from `now`, cut to MAX_RETRY_AFTER_SECONDS:
 * delay seconds (`120`) or an HTTP date (`Wed, 21 Oct 2026 07:28:00 GMT`, or an obsolete form).
 * Null when there is none, it is neither form, or the date is not after `now`. Pure.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (DELAY_SECONDS.test(text)) return Math.min(MAX_RETRY_AFTER_SECONDS, Number(text));
  const at = httpDate(text, now);
  if (at === null || at <= now.getTime()) return null;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.ceil((at - now.getTime()) / 1000));
}

/** An HTTP date as epoch milliseconds, or null when `text` is none (or names no real day or time). */
function httpDate(text: string, now: Date): number | null {
  let m = IMF_FIXDATE.exec(text);
  if (m) return utc(Number(m[3]), m[2], m[1], m[4], m[5], m[6]);
  m = RFC850_DATE.exec(text);
  if (m) {
    // A two-digit year more than 50 years ahead is the most recent past year ending so (RFC 9110 5.6.7).
    const nowYear = now.getUTCFullYear();
    let year = Math.floor(nowYear / 100) * 100 + Number(m[3]);
    if (year > nowYear + 50) year -= 100;
    return utc(year, m[2], m[1], m[4], m[5], m[6]);
  }
  m = ASCTIME_DATE.exec(text);
  if (m) return utc(Number(m[6]), m[1], m[2], m[3], m[4], m[5]);
  return null;
}

function utc(year: number, month: string, day: string, hours: string, minutes: string, seconds: string): number | null {
  const [d, h, min, s] = [day, hours, minutes, seconds].map(Number);
  const monthIndex = MONTHS.indexOf(month);
  const at = Date.UTC(year, monthIndex, d, h, min, s);
  // Date.UTC rolls 31 Feb over into March: a date that does not round-trip is no real day.
  const date = new Date(at);
  const real = date.getUTCDate() === d && date.getUTCMonth() === monthIndex && h < 24 && min < 60 && s < 61;
  return real ? at : null;
}
