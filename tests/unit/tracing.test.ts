import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INVALID_SPAN_CONTEXT, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { createTracing, otlpTracesUrl } from '../../src/tracing/kairosTracing.js';
import { traceparent } from '../../src/tracing/traceparent.js';
import { inSpan } from '../../src/tracing/inSpan.js';

describe('traceparent', () => {
  it('is 00-<trace id>-<span id>-<flags> (W3C Trace Context, version 00)', () => {
    const context = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED };
    expect(traceparent(context)).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(traceparent({ ...context, traceFlags: TraceFlags.NONE })).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00');
  });

  it('is null for an invalid (all-zero) context, which the no-op tracer gives', () => {
    expect(traceparent(INVALID_SPAN_CONTEXT)).toBeNull();
  });
});

describe('createTracing', () => {
  it('without an endpoint or exporter: off, the no-op tracer, no traceparent to send', async () => {
    const tracing = createTracing({ otlpEndpoint: null, serviceName: 'kairos', instanceId: 'test' });
    expect(tracing.enabled).toBe(false);
    const span = tracing.tracer.startSpan('nothing');
    expect(span.isRecording()).toBe(false);
    expect(traceparent(span.spanContext())).toBeNull();
    span.end();
    await tracing.shutdown();
  });

  it('with an exporter: each span is exported as it ends, with the service name and instance id', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createTracing({ otlpEndpoint: null, serviceName: 'kairos-unit', instanceId: 'host-1', exporter });
    expect(tracing.enabled).toBe(true);
    const span = tracing.tracer.startSpan('one');
    expect(traceparent(span.spanContext())).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    span.end();
    const [exported] = exporter.getFinishedSpans();
    expect(exported.name).toBe('one');
    expect(exported.resource.attributes).toMatchObject({ 'service.name': 'kairos-unit', 'service.instance.id': 'host-1' });
    expect(exported.instrumentationScope.name).toBe('kairos');
    await tracing.shutdown();
  });

  it('appends the traces path to the OTLP base endpoint', () => {
    expect(otlpTracesUrl('http://127.0.0.1:4318')).toBe('http://127.0.0.1:4318/v1/traces');
    expect(otlpTracesUrl('https://collector.example/otlp/')).toBe('https://collector.example/otlp/v1/traces');
  });
});

describe('inSpan', () => {
  it('ends the span with the result, or marks it an error by class (no message) and rethrows', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createTracing({ otlpEndpoint: null, serviceName: 'kairos', instanceId: 'test', exporter });
    expect(await inSpan(tracing.tracer, 'works', {}, async () => 42)).toBe(42);
    class SweepBroke extends Error {}
    await expect(
      inSpan(tracing.tracer, 'breaks', {}, async () => {
        throw new SweepBroke('mongodb://user:secret@host');
      }),
    ).rejects.toThrow(SweepBroke);
    const [works, breaks] = exporter.getFinishedSpans();
    expect(works.status.code).toBe(SpanStatusCode.UNSET);
    expect(breaks.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(breaks.attributes['error.type']).toBe('SweepBroke');
    expect(JSON.stringify([breaks.attributes, breaks.events])).not.toContain('secret');
    await tracing.shutdown();
  });
});

// Hooks sit inside a describe so they run before the leak check of tests/support/leakCheck.ts.
describe('OTLP/HTTP export to OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  const posts: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  let server: Server;
  let endpoint: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        posts.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('posts the batched spans as OTLP JSON to <endpoint>/v1/traces when shut down', async () => {
    const tracing = createTracing({ otlpEndpoint: endpoint, serviceName: 'kairos-otlp', instanceId: 'host-2' });
    expect(tracing.enabled).toBe(true);
    const span = tracing.tracer.startSpan('exported over otlp');
    const { traceId, spanId } = span.spanContext();
    span.end();
    expect(posts).toHaveLength(0);
    await tracing.shutdown();
    expect(posts).toHaveLength(1);
    expect(posts[0].url).toBe('/v1/traces');
    expect(posts[0].headers['content-type']).toBe('application/json');
    const body = JSON.parse(posts[0].body) as {
      resourceSpans: {
        resource: { attributes: { key: string; value: { stringValue?: string } }[] };
        scopeSpans: { spans: { name: string; traceId: string; spanId: string }[] }[];
      }[];
    };
    const [resourceSpans] = body.resourceSpans;
    expect(resourceSpans.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'kairos-otlp' } });
    expect(resourceSpans.scopeSpans[0].spans).toEqual([expect.objectContaining({ name: 'exported over otlp', traceId, spanId })]);
  });
});
