import { createHash } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got, as its own log (the chaos check compares it with MongoDB). */
export interface Delivery {
  idempotencyKey: string;
  attempt: number;
  at: number;
  /** What the receiver answered: 2xx, 500, 429 (with Retry-After: RETRY_AFTER_SECONDS), or 'stalled' (held past the job's timeout, then 200). */
  response: number | 'stalled';
  /** Requests to the same path in flight when this one arrived, itself included. */
  inFlight: number;
  path: string;
}

/** What a 429 answer asks for in its Retry-After header. */
export const RETRY_AFTER_SECONDS = 2;

export interface FlakyReceiverOptions {
  /** Share of (execution, attempt) pairs answered 500. Default 0.1. */
  failRate?: number;
  /** Share held for `stallMs` before answering, past the job's timeout. Default 0.05. */
  stallRate?: number;
  /** Share answered 429 with Retry-After. Default 0.05. */
  tooManyRate?: number;
  stallMs?: number;
}

/**
 * An HTTP target that fails or stalls some requests. The choice is a hash of (Idempotency-Key,
 * attempt), so a retry of a failed attempt usually succeeds and runs are reproducible.
 */
export class FlakyReceiver {
  readonly deliveries: Delivery[] = [];

  private readonly server: http.Server;

  private readonly timers = new Set<NodeJS.Timeout>();

  private readonly inFlight = new Map<string, number>();

  constructor(private readonly options: FlakyReceiverOptions = {}) {
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    req.resume();
    const key = String(req.headers['idempotency-key'] ?? '');
    const attempt = Number(req.headers['x-kairos-attempt'] ?? 0);
    const roll = createHash('sha256').update(`${key}/${attempt}`).digest().readUInt32BE(0) / 2 ** 32;
    const failRate = this.options.failRate ?? 0.1;
    const stallRate = this.options.stallRate ?? 0.05;
    const tooManyRate = this.options.tooManyRate ?? 0.05;
    const response: Delivery['response'] =
      roll < failRate ? 500 : roll < failRate + stallRate ? 'stalled' : roll < failRate + stallRate + tooManyRate ? 429 : 200;
    // Counted until the connection closes, answered or aborted by the worker (its timeout, or its death).
    const path = (req.url ?? '').split('?')[0];
    const inFlight = (this.inFlight.get(path) ?? 0) + 1;
    this.inFlight.set(path, inFlight);
    res.once('close', () => this.inFlight.set(path, (this.inFlight.get(path) ?? 1) - 1));
    this.deliveries.push({ idempotencyKey: key, attempt, at: Date.now(), response, inFlight, path });
    if (response === 'stalled') {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        res.writeHead(200).end('late');
      }, this.options.stallMs ?? 6000);
      this.timers.add(timer);
      return;
    }
    const retryAfter = response === 429 ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {};
    res.writeHead(response, { 'content-type': 'application/json', ...retryAfter }).end(JSON.stringify({ ok: response === 200 }));
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
