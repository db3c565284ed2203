import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { dropRedisPrefix } from '../servers/dropRedisPrefix.js';
import { parse, specifiedRules, validate } from 'graphql';
import { loadConfig } from '#kairos/config.js';
import { systemClock } from '#kairos/clock.js';
import { createLogger } from '#kairos/logger.js';
import { RateLimiter } from '#kairos/quotas/rateLimiter.js';
import { ConcurrencyLimiter } from '#kairos/quotas/concurrencyLimiter.js';
import type { TenantQuotas } from '#kairos/quotas/tenantQuotas.js';
import { queryLimits } from '#kairos/api/queryLimits.js';
import { kairosSchema } from '#kairos/api/buildSchema.js';

/**
 * `npm run bench:quotas [-- --ops 5000 --parallel 32]`: what the abuse controls cost per request.
 * Latency of a rate-limit check and of a tenant slot take + release against the real Redis (one
 * at a time, then `parallel` at once), and the time the query-limit rule takes on the largest
 * documents it must refuse. Uses its own Redis prefix and removes it at the end.
 */
const { values } = parseArgs({ options: { ops: { type: 'string', default: '5000' }, parallel: { type: 'string', default: '32' } } });
const ops = Number(values.ops);
const parallel = Number(values.parallel);
const config = loadConfig(undefined, { JWT_SECRET: randomBytes(24).toString('base64url') });
const prefix = `bench_quotas_${randomBytes(4).toString('hex')}`;
const redis = new Redis(config.redisUrl);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(label: string, op: (i: number) => Promise<unknown>): Promise<void> {
  for (const concurrency of [1, parallel]) {
    const latencies: number[] = [];
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < ops) {
          const i = next++;
          const t0 = process.hrtime.bigint();
          await op(i);
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    latencies.sort((a, b) => a - b);
    console.log(
      `${label.padEnd(32)} x${String(concurrency).padEnd(3)} ${Math.round(ops / seconds)} ops/s  p50 ${percentile(latencies, 50).toFixed(3)} ms  p99 ${percentile(latencies, 99).toFixed(3)} ms`,
    );
  }
}

try {
  const rates = new RateLimiter(redis, prefix, systemClock, createLogger({ bench: 'quotas' }, 'warn'));
  // A limit no run reaches: every call does the full check.
  await measure('rate limit check', (i) => rates.take('writes', `t${i % 100}`, 1_000_000_000));
  const quotas = {
    of: async () => ({ maxJobs: 1, maxConcurrentExecutions: 1_000_000, maxExecutionsPerMinute: 1 }),
  } as unknown as TenantQuotas;
  const slots = new ConcurrencyLimiter(redis, prefix, systemClock, quotas);
  await measure('tenant slot take + release', async (i) => {
    await slots.take(`t${i % 100}`, `e${i}`, 60_000);
    await slots.release(`t${i % 100}`, `e${i}`);
  });

  const schema = await kairosSchema();
  const bomb = `query { ...F0 } ${Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { ${i === 29 ? 'viewer { tenantId }' : `...F${i + 1} ...F${i + 1}`} }`).join(' ')}`;
  const documents: [string, string][] = [
    ['fragment bomb (2^30 spreads)', bomb],
    ['500 aliased fields', `{ ${Array.from({ length: 500 }, (_, i) => `a${i}: viewer { tenantId }`).join(' ')} }`],
    ['nested 300 levels', `{ jobs { edges { node { ${'executions { edges { node { job { '.repeat(100)}id${' } } } }'.repeat(100)} } } } }`],
    ['page of 100 executions', '{ executions(first: 100) { edges { node { id status attempts { number outcome } job { id name } } } } }'],
  ];
  for (const [label, text] of documents) {
    const document = parse(text, { maxTokens: 100_000 });
    const runs = 200;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < runs; i++) validate(schema, document, [...specifiedRules, queryLimits]);
    console.log(
      `validate: ${label.padEnd(30)} ${(Number(process.hrtime.bigint() - t0) / 1e6 / runs).toFixed(3)} ms per document (all rules)`,
    );
  }
} finally {
  await dropRedisPrefix(redis, prefix);
  await redis.quit();
}
