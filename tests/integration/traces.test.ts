// Covers: src/api/firstErrorCode.ts, src/api/operationTracing.ts, src/scheduler/schedulerRole.ts, src/tracing/spanAttributes.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startReceiver, type ReceivedRequest } from '../support/httpReceiver.js';
import { waitUntil } from '../support/waitFor.js';

const CREATE = `mutation CreateTracedJob($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
/** A header value that must reach the receiver and never a span. */
const TARGET_SECRET = 'Bearer sk-traces-never-on-a-span';

/**
 * Kairos in-process with an in-memory span exporter: a createJob over HTTP, the sweep and the HTTP
 * attempt each leave a span, and the receiver's traceparent names the attempt span as its parent.
 */
describe('traces of a GraphQL operation, a sweep pass and an attempt', () => {
  const exporter = new InMemorySpanExporter();
  const tenant = uniqueName('traces');
  const token = tokenFor(tenant, 'member');
  let k: TestKairos;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let request: ReceivedRequest;
  let spans: ReadableSpan[];
  let jobId: string;
  let attemptSpan: ReadableSpan;

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 200, body: '{"ok":true}' }));
    k = await startTestKairos('traces', { traceExporter: exporter, env: { OTEL_SERVICE_NAME: 'kairos-traces-test' } });
    const runAt = new Date(Date.now() + 1000).toISOString();
    const input = {
      name: 'traced',
      schedule: { runAt },
      target: { http: { url: `${receiver.url}/hook`, headers: [{ name: 'Authorization', value: TARGET_SECRET }] } },
    };
    jobId = (await gqlOk(k.url, token, CREATE, { input })).createJob.job.id;
    // A refused operation, for the error side of the GraphQL span.
    const refused = await gql(
      k.url,
      token,
      `mutation CreateRefusedJob($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`,
      {
        input: { name: 'refused', schedule: { intervalSeconds: 0 }, target: { handler: 'noop' } },
      },
    );
    expect(refused.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    [request] = await receiver.waitForRequests(1, 20_000);
    // The attempt span ends once the response is read and before the end is recorded.
    attemptSpan = await waitUntil(
      'the attempt span',
      async () => exporter.getFinishedSpans().find((s) => s.name === 'execution.attempt'),
      10_000,
    );
    spans = exporter.getFinishedSpans();
  }, 40_000);

  afterAll(async () => {
    await k?.stop();
    await receiver?.close();
  });

  const named = (name: string) => spans.filter((s) => s.name === name);

  it('a server span for the createJob operation, with its name, type and tenant', () => {
    const [span] = named('mutation CreateTracedJob');
    expect(span).toBeDefined();
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toMatchObject({
      'graphql.operation.name': 'CreateTracedJob',
      'graphql.operation.type': 'mutation',
      'kairos.tenant.id': tenant,
    });
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(span.resource.attributes['service.name']).toBe('kairos-traces-test');
  });

  it('a refused operation marks its span as an error with the code clients see', () => {
    const [span] = named('mutation CreateRefusedJob');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({ 'kairos.graphql.error_code': 'BAD_USER_INPUT', 'error.type': 'BAD_USER_INPUT' });
  });

  it('a span per sweep pass of the leader, with its fencing token and counts', () => {
    const sweeps = named('scheduler.sweep');
    expect(sweeps.length).toBeGreaterThan(0);
    for (const sweep of sweeps) {
      expect(sweep.attributes['kairos.scheduler.fencing_token']).toEqual(expect.any(Number));
      expect(sweep.attributes['kairos.scheduler.fencing_token']).toBeGreaterThan(0);
      expect(sweep.attributes['kairos.sweep.jobs']).toEqual(expect.any(Number));
      expect(sweep.attributes['kairos.sweep.executions']).toEqual(expect.any(Number));
    }
  });

  it('an attempt span with the execution id, attempt number and outcome', () => {
    expect(named('execution.attempt')).toHaveLength(1);
    expect(request.headers['x-kairos-execution-id']).toEqual(expect.any(String));
    expect(attemptSpan.attributes).toMatchObject({
      'kairos.execution.id': request.headers['x-kairos-execution-id'],
      'kairos.job.id': jobId,
      'kairos.tenant.id': tenant,
      'kairos.attempt.number': 1,
      'kairos.attempt.outcome': 'SUCCEEDED',
      'kairos.target.kind': 'HTTP',
      'http.response.status_code': 200,
    });
    expect(attemptSpan.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it("the receiver got the attempt span's context as a W3C traceparent", () => {
    const { traceId, spanId } = attemptSpan.spanContext();
    expect(request.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(request.headers.traceparent).toBe(`00-${traceId}-${spanId}-01`);
  });

  it('no span carries the target header, the URL or the token', () => {
    const everything = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events, s.status]));
    expect(request.headers.authorization).toBe(TARGET_SECRET);
    expect(everything).not.toContain('sk-traces-never-on-a-span');
    expect(everything).not.toContain(receiver.url);
    expect(everything).not.toContain(token);
  });
});
