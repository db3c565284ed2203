import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { request } from 'undici';
import { loadConfig } from '#kairos/config.js';
import { BUILTIN_HANDLERS } from '#kairos/workers/handlers/builtins.js';
import { targetAgent } from '#kairos/workers/targets/targetAgent.js';

/**
 * `npm run bench:io [-- --slots 64,1000,4000 --ms 5000]`: how many IO_BOUND attempts that only
 * wait one worker process holds. For each slot count N, N queue entries are consumed by one BullMQ
 * worker of concurrency N, each attempt either the built-in `sleep` handler or an HTTP call (through
 * the workers' connection pool) to a local server that answers after the same time. Prints the wall
 * time against the ideal (one hold), the most attempts seen at once, the event loop's delay and the
 * memory taken. Kairos' own per-attempt work (claim and end, group-committed) is the same at any
 * slot count and is measured by `npm run bench`; this measures only what holding many costs.
 */
const { values } = parseArgs({ options: { slots: { type: 'string', default: '64,1000,4000' }, ms: { type: 'string', default: '5000' } } });
const slotCounts = values.slots.split(',').map(Number);
const holdMs = Number(values.ms);
const config = loadConfig(undefined, { JWT_SECRET: randomBytes(24).toString('base64url') });
const connection = { url: config.redisUrl, maxRetriesPerRequest: null };
const sleep = BUILTIN_HANDLERS.get('sleep')!;

const server = http.createServer((_req, res) => {
  setTimeout(() => res.end('{}'), holdMs);
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const targetUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const dispatcher = targetAgent(true);

async function measure(kind: 'sleep' | 'http', n: number): Promise<Record<string, string | number>> {
  const prefix = `bench_io_${randomBytes(3).toString('hex')}`;
  const queue = new Queue('io', { connection, prefix });
  for (let i = 0; i < n; i += 1000) {
    await queue.addBulk(
      Array.from({ length: Math.min(1000, n - i) }, () => ({
        name: 'run',
        data: {},
        opts: { removeOnComplete: true, removeOnFail: true },
      })),
    );
  }
  let running = 0;
  let most = 0;
  let done = 0;
  let failed = 0;
  let finished!: () => void;
  const all = new Promise<void>((resolve) => (finished = resolve));
  const attempt = async () => {
    most = Math.max(most, ++running);
    try {
      if (kind === 'sleep')
        await sleep({ payload: { ms: holdMs }, executionId: 'bench', attempt: 1, signal: new AbortController().signal });
      else {
        const response = await request(targetUrl, { method: 'POST', body: '{}', dispatcher });
        await response.body.text();
      }
    } finally {
      running--;
    }
  };
  const worker = new Worker('io', attempt, { connection, prefix, concurrency: n, autorun: false });
  const count = () => {
    if (++done === n) finished();
  };
  worker.on('completed', count);
  worker.on('failed', () => {
    failed++;
    count();
  });
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 100);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = Date.now();
  void worker.run();
  await all;
  const wallMs = Date.now() - started;
  delay.disable();
  clearInterval(sampler);
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return {
    attempts: `${n} × ${kind} ${holdMs} ms`,
    failed,
    mostAtOnce: most,
    wallMs,
    overIdealMs: wallMs - holdMs,
    loopDelayP99Ms: Math.round(delay.percentile(99) / 1e6),
    loopDelayMaxMs: Math.round(delay.max / 1e6),
    rssAddedMiB: Math.round((rssPeak - rssBefore) / 2 ** 20),
  };
}

const rows = [];
for (const n of slotCounts) {
  for (const kind of ['sleep', 'http'] as const) rows.push(await measure(kind, n));
}
console.table(rows);
await dispatcher.close();
server.closeAllConnections();
server.close();
