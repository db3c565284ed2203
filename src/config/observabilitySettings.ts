import type { LogLevel } from '../logger.js';

/** What a process tells about itself: logs, metrics and traces. */
export interface ObservabilitySettings {
  /** LOG_LEVEL: the lowest level written to stderr (`info` also shows warnings and errors; `silent` none). Default `info`. */
  logLevel: LogLevel;
  /** METRICS_PORT: where every process serves `/metrics` (never on PORT: the api port answers without credentials). Default 9464; 0 picks a free port. */
  metricsPort: number;
  /**
   * METRICS_TENANT_LABEL: adds a `tenant` label to the per-execution metric families. Off by default:
   * every tenant multiplies those series (see docs/operating.md, "Metrics").
   */
  metricsTenantLabel: boolean;
  /**
   * Traces (docs/operating.md, "Traces"). `otlpEndpoint` (OTEL_EXPORTER_OTLP_ENDPOINT): the OTLP/HTTP base URL
   * spans are exported to (`/v1/traces` is appended); unset = no tracing at all. `serviceName`
   * (OTEL_SERVICE_NAME): the resource's service.name. Default `kairos`.
   */
  tracing: { otlpEndpoint: string | null; serviceName: string };
}
