import { isSpanContextValid, type SpanContext } from '@opentelemetry/api';

/**
 * The W3C Trace Context `traceparent` header naming `span` as the parent: `00-<trace id>-<span id>-<flags>`.
 * Null for the no-op tracer's (invalid) span context, so nothing is sent while tracing is off.
 */
export function traceparent(span: SpanContext): string | null {
  if (!isSpanContextValid(span)) return null;
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}
