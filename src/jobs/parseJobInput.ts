import type { HttpHeader, HttpMethod, JobDoc, JobTarget, Workload, OverlapPolicy, MisfirePolicy } from '../domain/job.js';
import { parseSchedule, type ScheduleInputFields } from '../domain/schedule/parseSchedule.js';
import { DEFAULT_RETRY_POLICY, parseRetryPolicy, type RetryPolicyInput } from '../domain/backoff.js';
import { BadUserInputError } from '../errors/index.js';
import { nestedDeeperThan } from '../domain/nesting.js';
import { privateLiteralHost } from '../domain/privateAddresses.js';
import { LIMITS } from '../domain/jobLimits.js';
import { parseFlowControl, type FlowControlInputFields } from '../domain/flowControl.js';
import type { ExclusionInputFields } from '../domain/schedule/parseExclusions.js';
import { labelPairs, parseLabels, type Label } from '../domain/labels.js';
import { parseExternalId } from '../domain/externalId.js';

export { LIMITS };

/** Headers Kairos sets itself on every request; a job may not override them. */
const RESERVED_HEADERS = /^(idempotency-key|x-kairos-.*|content-type|content-length|host|transfer-encoding|connection)$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

export interface TargetInputFields {
  http?: { url: string; method?: HttpMethod | null; headers?: HttpHeader[] | null } | null;
  handler?: string | null;
}

export interface JobInputFields {
  name?: string | null;
  description?: string | null;
  schedule?: ScheduleInputFields | null;
  target?: TargetInputFields | null;
  payload?: unknown;
  workload?: Workload | null;
  timeoutSeconds?: number | null;
  retryPolicy?: RetryPolicyInput | null;
  overlapPolicy?: OverlapPolicy | null;
  misfirePolicy?: MisfirePolicy | null;
  flowControl?: FlowControlInputFields | null;
  /** Replaces the job's exclusions whole (jobExclusions.ts); an empty list or null removes them. */
  exclusions?: ExclusionInputFields[] | null;
  labels?: Label[] | null;
  externalId?: string | null;
}

/** C0 control characters (NUL included) and DEL; `multiline` lets tab and line breaks through. */
// Matching control characters is the point of these two patterns.
/* eslint-disable no-control-regex */
const CONTROL = /[\u0000-\u001f\u007f]/;
const CONTROL_BUT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
/* eslint-enable no-control-regex */
/** Half of a UTF-16 surrogate pair without its other half: not text, and not storable as UTF-8 unchanged. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Refuses text that could not be stored and read back unchanged, or that would confuse logs and UIs. */
function checkText(value: string, field: string, multiline = false): string {
  if ((multiline ? CONTROL_BUT_WHITESPACE : CONTROL).test(value)) {
    throw new BadUserInputError(
      `${field} must not contain control characters${multiline ? ' other than tabs and line breaks' : ''}`,
      field,
    );
  }
  if (LONE_SURROGATE.test(value)) throw new BadUserInputError(`${field} is not valid Unicode text (a lone surrogate)`, field);
  return value;
}

export function parseName(name: string | null | undefined): string {
  const trimmed = (name ?? '').trim();
  if (!trimmed) throw new BadUserInputError('name must not be empty', 'name');
  if (trimmed.length > LIMITS.nameLength) throw new BadUserInputError(`name must be at most ${LIMITS.nameLength} characters`, 'name');
  return checkText(trimmed, 'name');
}

export function parseDescription(description: string | null | undefined): string | null {
  if (description === null || description === undefined) return null;
  if (description.length > LIMITS.descriptionLength) {
    throw new BadUserInputError(`description must be at most ${LIMITS.descriptionLength} characters`, 'description');
  }
  return checkText(description, 'description', true);
}

/**
 * Serialises a payload to JSON text within the size and nesting limits; undefined/null means none.
 * The payload is kept as this text, never as a document, so keys such as `$where` or `a.b` are data.
 */
export function parsePayload(payload: unknown, field = 'payload'): string | null {
  if (payload === undefined || payload === null) return null;
  if (nestedDeeperThan(payload, LIMITS.payloadDepth)) {
    throw new BadUserInputError(`${field} may nest arrays and objects at most ${LIMITS.payloadDepth} levels deep`, field);
  }
  const text = JSON.stringify(payload);
  if (Buffer.byteLength(text) > LIMITS.payloadBytes) {
    throw new BadUserInputError(`${field} must be at most ${LIMITS.payloadBytes / 1024} KiB of JSON`, field);
  }
  return text;
}

/**
 * The target, whole (an update replaces the current one: give every field you want to keep).
 * Unless `allowPrivateTargets`, a URL whose host is an IP literal in a private or reserved range is
 * refused here; a host name is checked when the worker connects, since what it resolves to may change.
 */
export function parseTarget(
  input: TargetInputFields | null | undefined,
  handlers: ReadonlySet<string>,
  allowPrivateTargets = false,
): JobTarget {
  const http = input?.http ?? null;
  const handler = input?.handler ?? null;
  if ((http === null) === (handler === null)) {
    throw new BadUserInputError('target needs exactly one of http or handler', 'target');
  }
  if (handler !== null) {
    if (!handlers.has(handler)) {
      throw new BadUserInputError(
        `target.handler "${handler.slice(0, 100)}" is not registered; known handlers: ${[...handlers].join(', ')}`,
        'target.handler',
      );
    }
    return { kind: 'HANDLER', handler };
  }
  const url = parseUrl(http!.url);
  const privateHost = allowPrivateTargets ? null : privateLiteralHost(url);
  if (privateHost) {
    throw new BadUserInputError(
      `target.http.url: ${privateHost} is a private, loopback, link-local or reserved address, which HTTP targets may not call unless the server runs with ALLOW_PRIVATE_TARGETS=true`,
      'target.http.url',
    );
  }
  return { kind: 'HTTP', url, method: http!.method ?? 'POST', headers: parseHeaders(http!.headers ?? []) };
}

function parseUrl(raw: string): string {
  if (raw.length > LIMITS.urlLength)
    throw new BadUserInputError(`target.http.url must be at most ${LIMITS.urlLength} characters`, 'target.http.url');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BadUserInputError('target.http.url is not a valid absolute URL', 'target.http.url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BadUserInputError('target.http.url must use http or https', 'target.http.url');
  }
  if (url.username || url.password) {
    throw new BadUserInputError('target.http.url must not contain credentials; use a header instead', 'target.http.url');
  }
  return url.toString();
}

function parseHeaders(headers: HttpHeader[]): HttpHeader[] {
  if (headers.length > LIMITS.headerCount) {
    throw new BadUserInputError(`target.http.headers may have at most ${LIMITS.headerCount} entries`, 'target.http.headers');
  }
  if (headers.reduce((sum, { name, value }) => sum + name.length + value.length, 0) > LIMITS.headerBytes) {
    throw new BadUserInputError(
      `target.http.headers may hold at most ${LIMITS.headerBytes / 1024} KiB of names and values`,
      'target.http.headers',
    );
  }
  return headers.map(({ name, value }) => {
    if (!HEADER_NAME.test(name))
      throw new BadUserInputError(`header name "${name.slice(0, 50)}" is not a valid HTTP header name`, 'target.http.headers');
    if (RESERVED_HEADERS.test(name))
      throw new BadUserInputError(`header ${name} is set by Kairos and cannot be overridden`, 'target.http.headers');
    // Visible ASCII and Latin-1 only: anything else cannot be sent in an HTTP header (fetch would throw on every attempt).
    if (value.length > LIMITS.headerValueLength || !/^[\t\x20-\x7e\x80-\xff]*$/.test(value)) {
      throw new BadUserInputError(
        `header ${name} has an invalid value (printable Latin-1 characters only, no line breaks, at most ${LIMITS.headerValueLength} characters)`,
        'target.http.headers',
      );
    }
    return { name, value };
  });
}

export function parseTimeout(timeoutSeconds: number | null | undefined): number {
  const value = timeoutSeconds ?? 60;
  if (!Number.isInteger(value) || value < 1 || value > LIMITS.timeoutSeconds) {
    throw new BadUserInputError(`timeoutSeconds must be an integer between 1 and ${LIMITS.timeoutSeconds}`, 'timeoutSeconds');
  }
  return value;
}

export function parseIdempotencyKey(key: string | null | undefined): string | null {
  if (key === null || key === undefined) return null;
  if (key.length === 0 || key.length > LIMITS.idempotencyKeyLength) {
    throw new BadUserInputError(`idempotencyKey must be 1 to ${LIMITS.idempotencyKeyLength} characters`, 'idempotencyKey');
  }
  return checkText(key, 'idempotencyKey');
}

/** The fields of a job's document that its definition, as a client gives it, sets; the others are bookkeeping. */
export type JobDefinition = Pick<
  JobDoc,
  | 'name'
  | 'description'
  | 'schedule'
  | 'target'
  | 'payloadJson'
  | 'workload'
  | 'timeoutSeconds'
  | 'retryPolicy'
  | 'overlapPolicy'
  | 'misfirePolicy'
  | 'flowControl'
  | 'labelPairs'
  | 'externalId'
>;

/** The validated definition of a new job; throws BadUserInputError naming the first field to fix. */
export function parseNewJob(input: JobInputFields, now: Date, handlers: ReadonlySet<string>, allowPrivateTargets = false): JobDefinition {
  if (!input.schedule) throw new BadUserInputError('schedule is required', 'schedule');
  const target = parseTarget(input.target, handlers, allowPrivateTargets);
  return {
    name: parseName(input.name),
    description: parseDescription(input.description),
    schedule: parseSchedule(input.schedule, now),
    target,
    payloadJson: parsePayload(input.payload),
    workload: input.workload ?? 'IO_BOUND',
    timeoutSeconds: parseTimeout(input.timeoutSeconds),
    retryPolicy: parseRetryPolicy(input.retryPolicy, DEFAULT_RETRY_POLICY),
    overlapPolicy: input.overlapPolicy ?? 'ALLOW',
    misfirePolicy: input.misfirePolicy ?? 'RUN_ONCE',
    flowControl: input.flowControl ? parseFlowControl(input.flowControl, target) : null,
    labelPairs: labelPairs(parseLabels(input.labels)),
    externalId: parseExternalId(input.externalId),
  };
}
