import { BadUserInputError } from '../errors/index.js';
import type { JobTarget } from './job.js';
import { isPlainText } from './plainText.js';

/**
 * A job's flow control, as stored: the executions of every job of a tenant that share `key` run at
 * most `maxConcurrent` attempts at once and start at most `maxPerMinute` attempts in any 60 s,
 * across all worker processes (quotas/flowLimiter.ts). Each execution is admitted against its own
 * job's limits, so jobs sharing a key should give the same ones.
 */
export interface FlowControl {
  key: string;
  /** The key was not given: it is the target's (its URL's origin, or `handler:<name>`) and follows a changed target. */
  keyFromTarget: boolean;
  maxConcurrent: number | null;
  maxPerMinute: number | null;
}

/** FlowControlInput as a client gives it. */
export interface FlowControlInputFields {
  key?: string | null;
  maxConcurrent?: number | null;
  maxPerMinute?: number | null;
}

export const FLOW_LIMITS = {
  keyLength: 200,
  maxConcurrent: 1000,
  maxPerMinute: 60_000,
  /** Distinct keys one tenant's jobs may use, so a tenant cannot fill Redis with keys. */
  keysPerTenant: 100,
};

/** The key of a job that gives none: the URL's origin (so jobs calling one host share it), or the handler's name. */
export function targetFlowKey(target: JobTarget): string {
  return target.kind === 'HTTP' ? new URL(target.url).origin : `handler:${target.handler}`;
}

/** Validates FlowControlInput for a job with `target`; throws BadUserInputError naming the field. */
export function parseFlowControl(input: FlowControlInputFields, target: JobTarget): FlowControl {
  const maxConcurrent = bounded(input.maxConcurrent, 'flowControl.maxConcurrent', FLOW_LIMITS.maxConcurrent);
  const maxPerMinute = bounded(input.maxPerMinute, 'flowControl.maxPerMinute', FLOW_LIMITS.maxPerMinute);
  if (maxConcurrent === null && maxPerMinute === null) {
    throw new BadUserInputError(
      'flowControl needs maxConcurrent, maxPerMinute or both; set flowControl to null to remove it',
      'flowControl',
    );
  }
  const given = input.key ?? null;
  if (given !== null) {
    const key = given.trim();
    if (!key || key.length > FLOW_LIMITS.keyLength || !isPlainText(key)) {
      throw new BadUserInputError(
        `flowControl.key must be 1 to ${FLOW_LIMITS.keyLength} characters without control characters`,
        'flowControl.key',
      );
    }
    return { key, keyFromTarget: false, maxConcurrent, maxPerMinute };
  }
  return { key: targetFlowKey(target), keyFromTarget: true, maxConcurrent, maxPerMinute };
}

/** A flow control whose key follows the target, after the target changed. */
export function withTarget(flow: FlowControl, target: JobTarget): FlowControl {
  return flow.keyFromTarget ? { ...flow, key: targetFlowKey(target) } : flow;
}

function bounded(value: number | null | undefined, field: string, max: number): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new BadUserInputError(`${field} must be a whole number from 1 to ${max}; got ${value}`, field);
  }
  return value;
}

/**
 * Why an execution waits for its key, as the limiter notes it (`concurrency|<running>|<max>` or
 * `rate|<started>|<max>|<next start, ms>`), in words for the API; null for anything else.
 */
export function flowWaitReason(key: string, noted: string | null): string | null {
  if (!noted) return null;
  const [kind, count, max, at] = noted.split('|');
  if (kind === 'concurrency') return `waiting for flow control key "${key}": ${count} of maxConcurrent ${max} running`;
  if (kind === 'rate' && at) {
    return `waiting for flow control key "${key}": ${count} of maxPerMinute ${max} started in the last minute; next start at ${new Date(Number(at)).toISOString()}`;
  }
  return null;
}
