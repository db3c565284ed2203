// Covers: src/tracing/spanAttributes.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ObjectId } from 'mongodb';
import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { Agent } from 'undici';
import { CancelledError, ShutdownError } from '../../src/events/cancelSignals.js';
import { toGlobalId } from '../../src/ids/globalId.js';
import { createLogger } from '../../src/logger.js';
import type { JobSnapshot } from '../../src/queue/queueEntry.js';
import type { TenantDoc } from '../../src/domain/tenant.js';
import { createTracing } from '../../src/tracing/kairosTracing.js';
import type { Handler, HandlerContext } from '../../src/workers/handlers/handler.js';
import { runTarget, type TargetDeps, type TargetRun } from '../../src/workers/runTarget.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');

const run: TargetRun = {
  _id: new ObjectId('650000000000000000000001'),
  executionId: '650000000000000000000001',
  tenantId: 'acme',
  jobId: new ObjectId('650000000000000000000002'),
  workload: 'IO_BOUND',
  scheduledFor: T0,
  payloadJson: null,
  trigger: 'MANUAL',
};

const job = (fields: Partial<JobSnapshot> = {}): JobSnapshot => ({
  version: 1,
  target: { kind: 'HANDLER', handler: 'work' },
  payloadJson: '{"n":1}',
  timeoutSeconds: 10,
  retryPolicy: { maxAttempts: 3, initialBackoffSeconds: 1, maxBackoffSeconds: 60, backoffMultiplier: 2 },
  overlapPolicy: 'ALLOW',
  workload: 'IO_BOUND',
  ...fields,
});

/** Resolves when the attempt's signal fires, rejecting with its reason, as a well-behaved handler stops. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));

/** runTarget over fakes of its ports; spans go to an in-memory exporter. */
function setup(work: Handler) {
  const exporter = new InMemorySpanExporter();
  const tracing = createTracing({ otlpEndpoint: null, serviceName: 'kairos', instanceId: 'test', exporter });
  const tracked = new Map<string, AbortController>();
  const calls: string[] = [];
  const contexts: HandlerContext[] = [];
  let missed: (() => void) | null = null;
  const deps: TargetDeps = {
    tenants: { ensure: async (tenantId) => ({ _id: tenantId, webhookSecret: 'whsec_unit' }) as TenantDoc },
    handlers: new Map([['work', (context: HandlerContext) => (contexts.push(context), work(context))]]),
    cpu: {
      run: async (handler, context) => {
        calls.push(`child process runs ${handler}`);
        return work(context);
      },
    },
    cancels: {
      track: (executionId, controller) => {
        tracked.set(executionId, controller);
        return () => tracked.delete(executionId);
      },
      clear: async (executionId) => {
        calls.push(`clear cancel ${executionId}`);
      },
    },
    http: { dispatcher: new Agent(), allowPrivate: true },
    tracer: tracing.tracer,
    clock: () => T0,
    logger: createLogger({}, 'silent'),
  };
  const attempt = { number: 2, claim: { onMissed: (listener: () => void) => void (missed = listener) } };
  return { deps, exporter, tracing, tracked, calls, contexts, attempt, miss: () => missed?.() };
}

describe('runTarget: the attempt under its timeout, cancel signals and span', () => {
  it('runs the handler with the payload and attempt, and records its result on the span', async () => {
    const { deps, exporter, tracing, tracked, contexts, attempt } = setup(async () => ({ done: true }));
    expect(await runTarget(deps, run, job(), attempt)).toEqual({
      outcome: 'SUCCEEDED',
      error: null,
      httpStatus: null,
      resultJson: '{"done":true}',
    });
    expect(contexts[0]).toMatchObject({ payload: { n: 1 }, executionId: toGlobalId('Execution', run._id), attempt: 2 });
    // No longer tracked for cancel signals once it ended.
    expect(tracked.size).toBe(0);
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('execution.attempt');
    expect(span.attributes).toMatchObject({
      'kairos.attempt.number': 2,
      'kairos.attempt.outcome': 'SUCCEEDED',
      'kairos.trigger': 'MANUAL',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    await tracing.shutdown();
    await deps.http.dispatcher.close();
  });

  it("sends the execution's own payload over the job's", async () => {
    const { deps, tracing, contexts, attempt } = setup(async () => undefined);
    expect(await runTarget(deps, { ...run, payloadJson: '"own"' }, job(), attempt)).toMatchObject({ resultJson: null });
    expect(contexts[0].payload).toBe('own');
    await tracing.shutdown();
    await deps.http.dispatcher.close();
  });

  it('a handler that throws fails the attempt (retryable) and marks the span an error', async () => {
    const { deps, exporter, tracing, attempt } = setup(async () => {
      throw new Error('boom');
    });
    expect(await runTarget(deps, run, job(), attempt)).toEqual({
      outcome: 'FAILED',
      error: 'boom',
      httpStatus: null,
      resultJson: null,
      final: false,
    });
    const [span] = exporter.getFinishedSpans();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('FAILED');
    await tracing.shutdown();
    await deps.http.dispatcher.close();
  });

  it('times out after the job timeout', async () => {
    const { deps, tracing, attempt } = setup(({ signal }) => untilAborted(signal));
    expect(await runTarget(deps, run, job({ timeoutSeconds: 0.05 }), attempt)).toMatchObject({
      outcome: 'TIMED_OUT',
      error: 'Timed out after 0.05 s',
      final: false,
    });
    await tracing.shutdown();
    await deps.http.dispatcher.close();
  });

  it('a cancel ends it CANCELLED with the reason and clears the cancel request', async () => {
    const { deps, tracing, tracked, calls, attempt } = setup(({ signal }) => untilAborted(signal));
    const running = runTarget(deps, run, job(), attempt);
    await new Promise((resolve) => setImmediate(resolve));
    tracked.get(run.executionId)?.abort(new CancelledError('cancelled by a user'));
    expect(await running).toEqual({ outcome: 'CANCELLED', error: 'cancelled by a user', httpStatus: null, resultJson: null });
    expect(calls).toEqual([`clear cancel ${run.executionId}`]);
    await tracing.shutdown();
    await deps.http.dispatcher.close();
  });

  it('a start whose write missed (the execution changed meanwhile) cancels the attempt', async () => {
    const { deps, tracing, attempt, miss } = setup(({ signal }) => untilAborted(signal));
    const running = runTarget(deps, run, job(), attempt);
    await new Promise((resolve) => setImmediate(resolve));
    miss();
    expect(await running).toMatchObject({ outcome: 'CANCELLED', error: 'the execution changed while this attempt was starting' });
    await tracing.shutdown();
    await deps.http.dispatcher.close();
  });

  it("a shutdown's abort records the attempt CRASHED (it is retried elsewhere)", async () => {
    const { deps, exporter, tracing, tracked, attempt } = setup(({ signal }) => untilAborted(signal));
    const running = runTarget(deps, run, job(), attempt);
    await new Promise((resolve) => setImmediate(resolve));
    tracked.get(run.executionId)?.abort(new ShutdownError('worker shutting down'));
    expect(await running).toMatchObject({ outcome: 'CRASHED', error: 'worker shutting down' });
    expect(exporter.getFinishedSpans()[0].attributes['error.type']).toBe('CRASHED');
    await tracing.shutdown();
    await deps.http.dispatcher.close();
  });

  it('runs a CPU_BOUND handler in a child process, and fails on a handler no module registered', async () => {
    const { deps, tracing, calls, attempt } = setup(async () => 7);
    expect(await runTarget(deps, { ...run, workload: 'CPU_BOUND' }, job({ workload: 'CPU_BOUND' }), attempt)).toMatchObject({
      outcome: 'SUCCEEDED',
      resultJson: '7',
    });
    expect(calls).toEqual(['child process runs work']);
    expect(await runTarget(deps, run, job({ target: { kind: 'HANDLER', handler: 'missing' } }), attempt)).toMatchObject({
      outcome: 'FAILED',
      error: 'No handler named "missing" is registered in this worker',
    });
    await tracing.shutdown();
    await deps.http.dispatcher.close();
  });

  describe('an HTTP target', () => {
    let server: Server;
    let url: string;
    const received: IncomingHttpHeaders[] = [];

    beforeAll(async () => {
      server = createServer((req, res) => {
        received.push(req.headers);
        req.resume();
        res.writeHead(req.url === '/fail' ? 503 : 200, { 'Content-Type': 'application/json' });
        res.end('{"ok":true}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it('gets the span as its traceparent; a failing status fails the attempt with it', async () => {
      const { deps, exporter, tracing, attempt } = setup(async () => null);
      const http = (path: string) => job({ target: { kind: 'HTTP', url: `${url}${path}`, method: 'POST', headers: [] } });
      expect(await runTarget(deps, run, http('/ok'), attempt)).toEqual({
        outcome: 'SUCCEEDED',
        error: null,
        httpStatus: 200,
        resultJson: expect.any(String),
      });
      expect(await runTarget(deps, run, http('/fail'), attempt)).toMatchObject({ outcome: 'FAILED', error: 'HTTP 503', httpStatus: 503 });
      const [ok, failed] = exporter.getFinishedSpans();
      expect(received[0].traceparent).toBe(`00-${ok.spanContext().traceId}-${ok.spanContext().spanId}-01`);
      expect(failed.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': 'FAILED' });
      await tracing.shutdown();
      await deps.http.dispatcher.close();
    });
  });
});
