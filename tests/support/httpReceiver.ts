import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A test receiver's answer: its status, and optionally its body, headers and a delay before it. */
export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

/**
 * A local HTTP target for tests (127.0.0.1 only). `respond` decides each reply; every request is
 * recorded. The caller closes it with `close()`.
 */
export async function startReceiver(respond: (req: ReceivedRequest, index: number) => Reply) {
  const received: ReceivedRequest[] = [];
  const waiters: (() => void)[] = [];
  /** Records a request and answers it as `respond` says; rejects only when the client aborts mid-body. */
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      at: Date.now(),
    };
    received.push(request);
    for (const wake of waiters.splice(0)) wake();
    const reply = respond(request, received.length - 1);
    const send = () => {
      if (res.destroyed) return;
      res.statusCode = reply.status;
      for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
      res.end(reply.body ?? '');
    };
    if (reply.delayMs) {
      const timer = setTimeout(send, reply.delayMs);
      res.on('close', () => clearTimeout(timer));
    } else send();
  };
  const server = http.createServer((req, res) => {
    answer(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
    async waitForRequests(count: number, timeoutMs: number): Promise<ReceivedRequest[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} requests, got ${received.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
