// Covers: src/tracing/spanAttributes.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { Agent } from 'undici';
import { CancelledError, ShutdownError } from '../../src/events/cancelSignals.js';
import { toGlobalId } from '../../src/ids/globalId.js';
import type { JobSnapshot } from '../../src/queue/queueEntry.js';
import type { TenantDoc } from '../../src/domain/tenant.js';
import { createTracing } from '../../src/tracing/kairosTracing.js';
import type { Handler, HandlerContext } from '../../src/workers/handlers/handler.js';
import { runTarget, type TargetDeps, type TargetRun } from '../../src/workers/runTarget.js';
import { signature, signatureV2 } from '../../src/workers/targets/webhookSignature.js';
import { afterT0, jobSnapshot, queuedRun, T0 } from '../support/executionFixtures.js';
import { silentLogger } from '../support/workerFakes.js';

const run: TargetRun = queuedRun({ trigger: 'MANUAL' });

const job = (fields: Partial<JobSnapshot> = {}): JobSnapshot =>
  jobSnapshot({ target: { kind: 'HANDLER', handler: 'work' }, payloadJson: '{"n":1}', ...fields });

/** Resolves when the attempt's signal fires, rejecting with its reason, as a well-behaved handler stops. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));

/** Lets the attempt start before the test acts on it. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

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
    logger: silentLogger(),
  };
  const attempt = { number: 2, claim: { onMissed: (listener: () => void) => void (missed = listener) } };
  /** Ends the tracing and the HTTP agent the test opened. */
  const close = async () => {
    await tracing.shutdown();
    await deps.http.dispatcher.close();
  };
  return { deps, exporter, tracked, calls, contexts, attempt, miss: () => missed?.(), close };
}

/**
 * An attempt whose handler runs until its signal fires, interrupted once it started: `interrupt`
 * aborts it as a cancel signal would (with its reason), or misses its start's write.
 */
async function interrupted(interrupt: (started: { abort: (reason: Error) => void; miss: () => void }) => void) {
  const fixture = setup(({ signal }) => untilAborted(signal));
  const running = runTarget(fixture.deps, run, job(), fixture.attempt);
  await turn();
  interrupt({ abort: (reason) => fixture.tracked.get(run.executionId)?.abort(reason), miss: fixture.miss });
  return { ...fixture, result: await running };
}

describe('runTarget: the attempt under its timeout, cancel signals and span', () => {
  it('runs the handler with the payload and attempt, and records its result on the span', async () => {
    const { deps, exporter, close, tracked, contexts, attempt } = setup(async () => ({ done: true }));
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
    await close();
  });

  it("sends the execution's own payload over the job's", async () => {
    const { deps, close, contexts, attempt } = setup(async () => undefined);
    expect(await runTarget(deps, { ...run, payloadJson: '"own"' }, job(), attempt)).toMatchObject({ resultJson: null });
    expect(contexts[0].payload).toBe('own');
    await close();
  });

  it('a handler that throws fails the attempt (retryable) and marks the span an error', async () => {
    const { deps, exporter, close, attempt } = setup(async () => {
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
    await close();
  });

  it('times out after the job timeout', async () => {
    const { deps, close, attempt } = setup(({ signal }) => untilAborted(signal));
    expect(await runTarget(deps, run, job({ timeoutSeconds: 0.05 }), attempt)).toMatchObject({
      outcome: 'TIMED_OUT',
      error: 'Timed out after 0.05 s',
      final: false,
    });
    await close();
  });

  it('a cancel ends it CANCELLED with the reason and clears the cancel request', async () => {
    const { result, calls, close } = await interrupted((started) => started.abort(new CancelledError('cancelled by a user')));
    expect(result).toEqual({ outcome: 'CANCELLED', error: 'cancelled by a user', httpStatus: null, resultJson: null });
    expect(calls).toEqual([`clear cancel ${run.executionId}`]);
    await close();
  });

  it('a start whose write missed (the execution changed meanwhile) cancels the attempt', async () => {
    const { result, close } = await interrupted((started) => started.miss());
    expect(result).toMatchObject({ outcome: 'CANCELLED', error: 'the execution changed while this attempt was starting' });
    await close();
  });

  it("a shutdown's abort records the attempt CRASHED (it is retried elsewhere)", async () => {
    const { result, exporter, close } = await interrupted((started) => started.abort(new ShutdownError('worker shutting down')));
    expect(result).toMatchObject({ outcome: 'CRASHED', error: 'worker shutting down' });
    expect(exporter.getFinishedSpans()[0].attributes['error.type']).toBe('CRASHED');
    await close();
  });

  it('runs a CPU_BOUND handler in a child process, and fails on a handler no module registered', async () => {
    const { deps, close, calls, attempt } = setup(async () => 7);
    expect(await runTarget(deps, { ...run, workload: 'CPU_BOUND' }, job({ workload: 'CPU_BOUND' }), attempt)).toMatchObject({
      outcome: 'SUCCEEDED',
      resultJson: '7',
    });
    expect(calls).toEqual(['child process runs work']);
    expect(await runTarget(deps, run, job({ target: { kind: 'HANDLER', handler: 'missing' } }), attempt)).toMatchObject({
      outcome: 'FAILED',
      error: 'No handler named "missing" is registered in this worker',
    });
    await close();
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
      const { deps, exporter, close, attempt } = setup(async () => null);
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
      await close();
    });

    it("signs with the tenant's previous secret too until its expiry, judged at the attempt's own instant, from the same read", async () => {
      const { deps, close, attempt } = setup(async () => null);
      const reads: string[] = [];
      const tenant = {
        webhookSecret: 'whsec_new',
        previousWebhookSecret: 'whsec_old',
        previousWebhookSecretExpiresAt: afterT0(1000),
      };
      deps.tenants = { ensure: async (tenantId) => (reads.push(tenantId), { _id: tenantId, ...tenant }) as TenantDoc };
      const http = job({ target: { kind: 'HTTP', url: `${url}/ok`, method: 'POST', headers: [] } });
      const request = { executionId: toGlobalId('Execution', run._id), method: 'POST', url: `${url}/ok`, body: '{"n":1}' };
      const sent = async (now: Date) => {
        deps.clock = () => now;
        await runTarget(deps, run, http, attempt);
        return received[received.length - 1];
      };

      const during = await sent(afterT0(999));
      expect(during['x-kairos-signature-v2']).toBe(signatureV2(['whsec_new', 'whsec_old'], request, afterT0(999)));
      expect(during['x-kairos-signature']).toBe(signature(['whsec_new', 'whsec_old'], '{"n":1}', afterT0(999)));
      // At the expiry instant the grace is over, though the record still holds the previous secret.
      const after = await sent(afterT0(1000));
      expect(after['x-kairos-signature-v2']).toBe(signatureV2('whsec_new', request, afterT0(1000)));
      expect(after['x-kairos-signature']).toBe(signature('whsec_new', '{"n":1}', afterT0(1000)));
      expect(reads).toEqual([run.tenantId, run.tenantId]);
      await close();
    });
  });
});
