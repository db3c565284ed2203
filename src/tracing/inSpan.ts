import { SpanStatusCode, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';

/**
 * Runs `work` inside a new span and ends the span when it settles; a throw marks the span as an
 * error (type: the error's class name; no message, which may carry data) and is rethrown.
 */
export async function inSpan<T>(tracer: Tracer, name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const span = tracer.startSpan(name, options);
  try {
    return await work(span);
  } catch (error) {
    span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.constructor.name : typeof error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
