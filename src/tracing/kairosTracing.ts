import { ProxyTracerProvider, type Tracer } from '@opentelemetry/api';
import { BatchSpanProcessor, SimpleSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/** The instrumentation scope of every Kairos span. */
const TRACER_NAME = 'kairos';

export interface KairosTracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the OTLP/HTTP base URL; null (and no `exporter`) = tracing off. */
  otlpEndpoint: string | null;
  /** OTEL_SERVICE_NAME: the resource's `service.name`. */
  serviceName: string;
  /** The process's instance id, the resource's `service.instance.id`. */
  instanceId: string;
  /** Export here instead of OTLP, each span as it ends (tests pass an InMemorySpanExporter). */
  exporter?: SpanExporter;
}

/** The process's tracer, made once by the composition root and handed to the parts that make spans. */
export interface KairosTracing {
  /** False when nothing is configured: `tracer` is then the API's no-op tracer and costs nothing. */
  readonly enabled: boolean;
  readonly tracer: Tracer;
  /** Exports the spans still buffered, then stops the exporter. */
  shutdown(): Promise<void>;
}

/**
 * A tracer provider of its own (never registered globally, so nothing else in the process records
 * into it): OTLP/HTTP in batches when an endpoint is configured, the injected exporter span by span.
 */
export function createTracing(options: KairosTracingOptions): KairosTracing {
  const processor = options.exporter
    ? new SimpleSpanProcessor({ exporter: options.exporter })
    : options.otlpEndpoint
      ? new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: otlpTracesUrl(options.otlpEndpoint) }) })
      : null;
  if (!processor) {
    // A proxy provider that is never given a delegate hands out the no-op tracer.
    return { enabled: false, tracer: new ProxyTracerProvider().getTracer(TRACER_NAME), shutdown: async () => undefined };
  }
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, [ATTR_SERVICE_INSTANCE_ID]: options.instanceId }),
    spanProcessors: [processor],
  });
  return { enabled: true, tracer: provider.getTracer(TRACER_NAME), shutdown: () => provider.shutdown() };
}

/** OTEL_EXPORTER_OTLP_ENDPOINT is a base URL: the traces signal is posted to `<base>/v1/traces` (OTLP exporter spec). */
export function otlpTracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}
