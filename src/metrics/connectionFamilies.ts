import { Counter, Gauge, type Registry } from 'prom-client';

export type QueueState = 'waiting' | 'delayed' | 'active';
/** What a queue-depth scrape reads: counts per queue name and state. */
export type QueueDepths = () => Promise<Record<string, Record<QueueState, number>>>;

/**
 * The families of the connections: errors of MongoDB and Redis, and the queues' depth, read from
 * Redis at scrape time through `depthsReader` (null in a process that neither feeds nor drains the
 * queues); a failed read counts as a queue connection error.
 */
export function connectionFamilies(registers: Registry[], depthsReader: () => QueueDepths | null, onRedisError: () => void) {
  const families = {
    queueDepth: new Gauge({
      name: 'kairos_queue_depth',
      help: 'Entries in each execution queue by state, read from Redis at scrape time (the same value from every process that reports it).',
      labelNames: ['queue', 'state'],
      registers,
      // `this` is the gauge here (prom-client calls collect on it).
      async collect() {
        const read = depthsReader();
        if (!read) return;
        this.reset();
        try {
          for (const [queue, counts] of Object.entries(await read())) {
            for (const [state, value] of Object.entries(counts)) this.set({ queue, state }, value);
          }
        } catch {
          // An unreachable Redis must not fail the whole scrape; the series are simply absent meanwhile.
          onRedisError();
        }
      },
    }),
    mongoErrors: new Counter({
      name: 'kairos_mongodb_errors_total',
      help: 'MongoDB errors: failed server heartbeats, and workers that found MongoDB unreachable.',
      labelNames: ['source'],
      registers,
    }),
    redisErrors: new Counter({
      name: 'kairos_redis_errors_total',
      help: 'Redis connection errors, by connection.',
      labelNames: ['connection'],
      registers,
    }),
  };
  // Zero series for the label values known up front, so a rate() works from the first scrape.
  for (const source of ['heartbeat', 'worker']) families.mongoErrors.inc({ source }, 0);
  for (const connection of ['main', 'queue', 'worker']) families.redisErrors.inc({ connection }, 0);
  return families;
}
