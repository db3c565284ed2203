import http, { type ServerResponse } from 'node:http';
import type { KairosMetrics } from './kairosMetrics.js';

/** Answers a scrape: the registry's text exposition. */
async function sendMetrics(metrics: KairosMetrics, res: ServerResponse): Promise<void> {
  const { contentType, body } = await metrics.exposition();
  res.statusCode = 200;
  res.setHeader('content-type', contentType);
  res.end(body);
}

/**
 * `/metrics` of a process, whatever its roles, on METRICS_PORT: one server per process. Never on the
 * api's port, which the ingress exposes: the scrape has no credentials, so it stays where only
 * Prometheus is admitted. Owns its HTTP server; `stop()` closes it.
 */
export class MetricsServer {
  private readonly server: http.Server;

  constructor(
    private readonly metrics: KairosMetrics,
    private readonly options: { port: number; host: string; onError: (error: unknown) => void },
  ) {
    this.server = http.createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path !== '/metrics') {
        res.statusCode = 404;
        res.end('Not found; metrics are at /metrics\n');
        return;
      }
      sendMetrics(this.metrics, res).catch((error: unknown) => {
        this.options.onError(error);
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
    });
  }

  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : this.options.port;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => resolve());
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
