/** The flow-control key the chaos run's limited HTTP jobs share, and its limit; their URL's path. */
export const CHAOS_FLOW = { key: 'chaos-partner', maxConcurrent: 2, path: '/limited' };

/**
 * The chaos run's job mix: `count` jobs cycling through cron and interval schedules that call
 * `noop`, `sleep` (so workers are killed mid-attempt) and the flaky HTTP target, some of them
 * through one flow-control key. RUN_ALL, so an occurrence missed during an outage still gets its
 * own execution, and ALLOW, so none is SKIPPED.
 */
export function chaosJobs(count: number, targetUrl: string): Record<string, unknown>[] {
  const retryPolicy = { maxAttempts: 3, initialBackoffSeconds: 1, maxBackoffSeconds: 4, backoffMultiplier: 2 };
  const common = { misfirePolicy: 'RUN_ALL', overlapPolicy: 'ALLOW', timeoutSeconds: 3, retryPolicy };
  const http = { http: { url: targetUrl, method: 'POST' } };
  // About 10 executions a second in all: FerretDB on this kind of machine runs about 25 a second
  // with seven processes, and the run needs headroom to catch up after each outage.
  const kinds = [
    { schedule: { cron: '*/20 * * * * *' }, target: { handler: 'sleep' }, payload: (i: number) => ({ ms: 500 + (i % 4) * 500 }) },
    { schedule: { intervalSeconds: 15 }, target: { handler: 'noop' } },
    { schedule: { intervalSeconds: 10 }, target: http, payload: (i: number) => ({ job: i }) },
    { schedule: { cron: '*/30 * * * * *' }, target: http },
    { schedule: { intervalSeconds: 20 }, target: { handler: 'sleep' }, payload: (i: number) => ({ ms: 1000 + (i % 3) * 500 }) },
    {
      schedule: { intervalSeconds: 15 },
      target: { http: { url: targetUrl + CHAOS_FLOW.path, method: 'POST' } },
      flowControl: { key: CHAOS_FLOW.key, maxConcurrent: CHAOS_FLOW.maxConcurrent },
    },
  ];
  return Array.from({ length: count }, (_, i) => {
    const kind = kinds[i % kinds.length];
    return {
      name: `chaos-${i}`,
      ...common,
      schedule: kind.schedule,
      target: kind.target,
      payload: kind.payload?.(i) ?? null,
      ...(kind.flowControl && { flowControl: kind.flowControl }),
    };
  });
}
