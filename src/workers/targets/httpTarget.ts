import { fetch, type Dispatcher } from 'undici';
import { UnusableTargetError, checkLiteralHost, unresolvable } from './targetAgent.js';
import type { HttpHeader, HttpMethod } from '../../domain/job.js';
import { signature, signatureV2 } from './webhookSignature.js';

/** Bodies kept in an execution's result are cut here. */
export const RESULT_BODY_LIMIT = 64 * 1024;

export interface HttpCall {
  url: string;
  method: HttpMethod;
  headers: HttpHeader[];
  /** The payload as JSON text, sent as the body of methods that have one. */
  payloadJson: string | null;
  executionId: string;
  jobId: string;
  attempt: number;
  scheduledFor: Date;
  /** The tenant's webhook signing secret; during a rotation's grace, its secrets newest first (each signs the delivery). */
  secret: string | readonly string[];
  signal: AbortSignal;
  now: Date;
  /** The connection pool (see targetAgent), which refuses private addresses unless allowed. */
  dispatcher?: Dispatcher;
  /** Whether an IP-literal host in a private range may be called (ALLOW_PRIVATE_TARGETS). */
  allowPrivate?: boolean;
  /** The W3C `traceparent` of the attempt's span, sent when tracing is on (it replaces a job's own header of that name). */
  traceparent?: string | null;
}

export interface HttpOutcome {
  ok: boolean;
  status: number;
  result: { status: number; headers: Record<string, string>; body: string };
}

/**
 * Calls an HTTP target once. 2xx is success; any other status is a failed attempt; a network
 * error or abort (timeout, cancellation) throws. Redirects are not followed.
 */
export async function callHttpTarget(call: HttpCall): Promise<HttpOutcome> {
  const hasBody = call.method !== 'GET' && call.method !== 'DELETE';
  const body = hasBody ? (call.payloadJson ?? 'null') : '';
  const headers = new Headers();
  for (const h of call.headers) headers.append(h.name, h.value);
  if (hasBody) headers.set('Content-Type', 'application/json');
  headers.set('Idempotency-Key', call.executionId);
  headers.set('X-Kairos-Execution-Id', call.executionId);
  headers.set('X-Kairos-Job-Id', call.jobId);
  headers.set('X-Kairos-Attempt', String(call.attempt));
  headers.set('X-Kairos-Scheduled-For', call.scheduledFor.toISOString());
  // v1 stays for receivers not yet moved to v2 (deprecated: docs/security.md, "Webhook signatures"); v2 also binds the execution id, method and URL.
  headers.set('X-Kairos-Signature', signature(call.secret, body, call.now));
  headers.set(
    'X-Kairos-Signature-V2',
    signatureV2(call.secret, { executionId: call.executionId, method: call.method, url: call.url, body }, call.now),
  );
  if (call.traceparent) headers.set('traceparent', call.traceparent);
  checkLiteralHost(call.url, call.allowPrivate ?? true);
  let response: Awaited<ReturnType<typeof fetch>>;
  try {
    response = await fetch(call.url, {
      method: call.method,
      headers,
      body: hasBody ? body : undefined,
      redirect: 'manual',
      signal: call.signal,
      dispatcher: call.dispatcher,
    });
  } catch (error) {
    // fetch says only "fetch failed"; the cause (refused address, DNS, connection) is what helps.
    const cause = (error as { cause?: unknown }).cause;
    if (call.signal.aborted) throw error;
    // A refusal is passed on as it is, and a failed lookup made as neutral: their message is what the attempt records.
    if (cause instanceof UnusableTargetError) throw cause;
    const unresolved = unresolvable(cause, call.url);
    if (unresolved) throw unresolved;
    if (!(cause instanceof Error)) throw error;
    throw new Error(`${(error as Error).message}: ${cause.message}`, { cause: error });
  }
  const text = await readCapped(response, RESULT_BODY_LIMIT);
  return {
    ok: response.status >= 200 && response.status < 300,
    status: response.status,
    result: { status: response.status, headers: Object.fromEntries(response.headers), body: text },
  };
}

/** Reads at most `limit` bytes of the body and drops the rest, so a huge response cannot fill memory. */
async function readCapped(response: Awaited<ReturnType<typeof fetch>>, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < limit) {
    const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
    if (done || !value) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}
