/**
 * Wall-clock time in an IANA time zone, read through Intl (no time-zone library).
 * Also the zone-offset primitive the occurrence computation builds on.
 */

/**
 * More than the zone names Intl accepts (about 600 with aliases, ignoring case; a name it refuses is
 * never cached), so with keys in lower case no request can evict a formatter another one uses.
 */
const MAX_FORMATTERS = 1000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  const key = timezone.toLowerCase();
  let formatter = formatters.get(key);
  if (formatter === undefined) {
    // Throws RangeError for an unknown zone, before anything is cached.
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.delete(formatters.keys().next().value as string);
    formatters.set(key, formatter);
  }
  return formatter;
}

/** Whether Intl knows the zone (any letter case); the formatter it builds to find out is kept for later. */
export function isKnownTimeZone(timezone: string): boolean {
  try {
    formatterFor(timezone);
    return true;
  } catch {
    return false;
  }
}

/** `format` is about twice as fast as `formatToParts`; its en-US numeric output is read directly. */
const FORMATTED = /^(\d{1,2})\/(\d{1,2})\/(\d{4,}), (\d{2}):(\d{2}):(\d{2})$/;

/**
 * The UTC offset of `timezone` at `instantMs`, in milliseconds (local wall time minus UTC), so that
 * `instantMs + offset` read as UTC is the wall-clock time. Throws RangeError for an unknown zone.
 */
export function zoneOffsetMs(instantMs: number, timezone: string): number {
  const formatter = formatterFor(timezone);
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  const quick = FORMATTED.exec(formatter.format(instantMs));
  if (quick !== null) {
    [month, day, year, hour, minute, second] = quick.slice(1).map(Number);
  } else {
    // Years before 1000 or in another era: read the parts.
    for (const part of formatter.formatToParts(instantMs)) {
      switch (part.type) {
        case 'year':
          year = Number(part.value);
          break;
        case 'month':
          month = Number(part.value);
          break;
        case 'day':
          day = Number(part.value);
          break;
        case 'hour':
          hour = Number(part.value);
          break;
        case 'minute':
          minute = Number(part.value);
          break;
        case 'second':
          second = Number(part.value);
          break;
        default:
          break;
      }
    }
  }
  const wall = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  wall.setUTCFullYear(year); // Date.UTC maps years 0..99 to 1900..1999
  const wholeSecond = instantMs - (((instantMs % 1000) + 1000) % 1000);
  return wall.getTime() - wholeSecond;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/**
 * `instant` as ISO-8601 wall-clock time in `timezone` with its UTC offset and millisecond precision,
 * e.g. `2027-03-14T03:00:00.000-04:00` (`+00:00` for UTC). Throws RangeError for an unknown zone.
 */
export function formatLocal(instant: Date, timezone: string): string {
  const ms = instant.getTime();
  // Offsets are printed to the minute; applying the rounded offset keeps the string the exact same instant
  // even for historical local-mean-time offsets that have seconds.
  const offsetMinutes = Math.round(zoneOffsetMs(ms, timezone) / 60_000);
  const local = new Date(ms + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const absolute = Math.abs(offsetMinutes);
  return (
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)}` +
    `T${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}` +
    `.${pad(local.getUTCMilliseconds(), 3)}${sign}${pad(Math.floor(absolute / 60), 2)}:${pad(absolute % 60, 2)}`
  );
}
