import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
// The project's own client SDK (built by scripts/test.sh before jest) drives create → watch → page.
import { KairosClient, type ExecutionEvent } from '../../sdk/typescript/dist/index.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { EventCollector } from '../support/subscriptions.js';

describe('createJob to a live subscription event, on real servers', () => {
  let kairos: TestKairos;
  let clients: KairosClient[] = [];
  const tenantA = uniqueName('tenantA');
  const tenantB = uniqueName('tenantB');
  const tokenA = tokenFor(tenantA, 'member');
  const tokenB = tokenFor(tenantB, 'admin');

  beforeAll(async () => {
    kairos = await startTestKairos('e2e');
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    clients = [];
    await kairos?.stop();
  });

  function client(token: string): KairosClient {
    const c = new KairosClient({ url: kairos.url, token });
    clients.push(c);
    return c;
  }

  /**
   * A tenant-wide subscription that is known to be live: the server registers a subscription
   * asynchronously, so one-off probe jobs are created until the subscription has seen one succeed.
   */
  async function liveSubscription(token: string): Promise<EventCollector<ExecutionEvent>> {
    const sdk = client(token);
    const collector = new EventCollector<ExecutionEvent>(sdk.watchExecutions());
    const probeSucceeded = (items: ExecutionEvent[]) => items.some((e) => e.status === 'SUCCEEDED');
    for (let i = 0; i < 20 && collector.items.length === 0; i++) {
      await sdk.createJob({ name: `probe-${i}`, schedule: { runAt: new Date().toISOString() }, target: { handler: 'noop' } });
      await collector.waitFor((items) => items.length > 0, 500).catch(() => undefined);
    }
    await collector.waitFor(probeSucceeded, 10_000);
    return collector;
  }

  it('streams QUEUED, RUNNING and SUCCEEDED of a job firing every second, pages through its executions, and hides them from another tenant', async () => {
    const eventsA = await liveSubscription(tokenA);
    const eventsB = await liveSubscription(tokenB);

    const sdkA = client(tokenA);
    const created = await sdkA.createJob({ name: 'every-second', schedule: { intervalSeconds: 1 }, target: { handler: 'noop' } });
    const jobId = created.id;
    expect(created).toMatchObject({
      name: 'every-second',
      status: 'ACTIVE',
      workload: 'IO_BOUND',
      schedule: { kind: 'INTERVAL', intervalSeconds: 1 },
    });

    const lifecycles = (items: ExecutionEvent[]) => {
      const byExecution = new Map<string, string[]>();
      for (const e of items) {
        if (e.execution.jobId !== jobId || e.status === 'SCHEDULED') continue;
        byExecution.set(e.execution.id, [...(byExecution.get(e.execution.id) ?? []), e.status]);
      }
      return byExecution;
    };
    const full = (items: ExecutionEvent[]) => [...lifecycles(items).values()].filter((s) => s.join() === 'QUEUED,RUNNING,SUCCEEDED').length;
    const events = await eventsA.waitFor((items) => full(items) >= 3, 30_000);
    const byExecution = lifecycles(events);
    // Events of one execution arrive in order: every sequence seen is a prefix of the lifecycle.
    for (const statuses of byExecution.values()) {
      expect('QUEUED,RUNNING,SUCCEEDED'.startsWith(statuses.join())).toBe(true);
    }
    const succeeded = [...byExecution].filter(([, s]) => s.includes('SUCCEEDED')).map(([id]) => id);

    // Page through the job's executions two at a time: newest first, no duplicates, the succeeded ones included.
    const firstPage = await sdkA.executions({ first: 2, filter: { jobId } });
    expect(firstPage.pageInfo.hasPreviousPage).toBe(false);
    expect(firstPage.pageInfo.hasNextPage).toBe(true);
    const seen: { id: string; scheduledFor: string }[] = [];
    for await (const execution of sdkA.executionsAll({ jobId, pageSize: 2 })) {
      expect(execution.job).toEqual({ id: jobId, name: 'every-second' });
      seen.push(execution);
      if (seen.length >= 100) break;
    }
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    const times = seen.map((e) => Date.parse(e.scheduledFor));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    for (const id of succeeded) expect(seen.map((e) => e.id)).toContain(id);

    // Tenant B sees nothing of tenant A: not the job, not its executions, not its events.
    const other = await gql(
      kairos.url,
      tokenB,
      `query($id: ID!, $jobId: ID) { job(id: $id) { id } node(id: $id) { id } executions(filter: { jobId: $jobId }) { edges { node { id } } } }`,
      { id: jobId, jobId },
    );
    expect(other.errors).toBeUndefined();
    expect(other.data).toEqual({ job: null, node: null, executions: { edges: [] } });
    const allOfB: any = await gqlOk(kairos.url, tokenB, `{ executions(first: 100) { edges { node { jobId } } } }`);
    expect(allOfB.executions.edges.map((e: any) => e.node.jobId)).not.toContain(jobId);
    const execution = await gql(kairos.url, tokenB, `query($id: ID!) { execution(id: $id) { id } }`, { id: succeeded[0] });
    expect(execution.data).toEqual({ execution: null });
    expect(eventsB.items.filter((e) => e.execution.jobId === jobId)).toEqual([]);
    eventsA.stop();
    eventsB.stop();
  });

  it('starts a one-off job due 2 s after creation within 500 ms of its time', async () => {
    const events = await liveSubscription(tokenA);
    const runAt = new Date(Date.now() + 2000);
    const sdkA = client(tokenA);
    const { id: jobId } = await sdkA.createJob({ name: 'one-off', schedule: { runAt: runAt.toISOString() }, target: { handler: 'noop' } });
    await events.waitFor((items) => items.some((e) => e.execution.jobId === jobId && e.status === 'SUCCEEDED'), 10_000);
    const node = (await sdkA.executions({ first: 1, filter: { jobId } })).edges[0]?.node;
    expect(node).toMatchObject({ status: 'SUCCEEDED', trigger: 'SCHEDULE', scheduledFor: runAt.toISOString(), attempt: 1 });
    process.stdout.write(`one-off start lag: ${node?.startLagMs} ms\n`);
    expect(node?.startLagMs).toBeGreaterThanOrEqual(0);
    expect(node?.startLagMs).toBeLessThan(500);
    expect(await sdkA.job(jobId)).toMatchObject({ status: 'COMPLETED', nextRunAt: null });
    events.stop();
  });
});
