import type { Tracer } from '@opentelemetry/api';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { KairosMetrics } from '../metrics/kairosMetrics.js';
import type { Closers } from './closers.js';

/** What every role of one process shares, whatever connections it uses: made once by the composition root. */
export interface ProcessServices {
  /** This process among its peers: the scheduler's lease candidate, the worker's id on its claims. */
  instanceId: string;
  clock: Clock;
  logger: Logger;
  /** The process's one registry, served at /metrics. */
  metrics: KairosMetrics;
  /** The process's tracer (the no-op one when tracing is off). */
  tracer: Tracer;
  /** Where each role registers what it opens, so the process closes it. */
  closers: Closers;
}
