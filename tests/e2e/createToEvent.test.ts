import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';

const CREATE_JOB = /* GraphQL */ `
  mutation Create($input: CreateJobInput!) {
    createJob(input: $input) { job { id name status nextRunAt workload schedule { kind intervalSeconds runAt timezone } } }
  }
`;
const SUBSCRIBE = /* GraphQL */ `
  subscription Updates($jobId: ID) {
    executionUpdated(jobId: $jobId) { previousStatus status occurredAt execution { id jobId status scheduledFor } }
  }
`;
const EXECUTIONS = /* GraphQL */ `
  query Page($first: Int, $after: String, $filter: ExecutionFilter) {
    executions(first: $first, after: $after, filter: $filter) {
      edges { cursor node { id jobId status trigger scheduledFor startLagMs attempt attempts { number outcome workerId } job { id name } } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`;

interface UpdateEvent {
  executionUpdated: { previousStatus: string | null; status: string; execution: { id: string; jobId: string; status: string; scheduledFor: string } };
}

describe('createJob to a live subscription event, on real servers', () => {
  let kairos: TestKairos;
  let clients: Client[] = [];
  const tenantA = uniqueName('tenantA');
  const tenantB = uniqueName('tenantB');
  const tokenA = tokenFor(tenantA, 'member');
  const tokenB = tokenFor(tenantB, 'admin');

  beforeAll(async () => {
    kairos = await startTestKairos('e2e');
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    clients = [];
    await kairos?.stop();
  });

  function client(token: string): Client {
    const c = wsClient(kairos.url, token);
    clients.push(c);
    return c;
  }

  /**
   * A tenant-wide subscription that is known to be live: the server registers a subscription
   * asynchronously, so one-off probe jobs are created until the subscription has seen one succeed.
   */
  async function liveSubscription(token: string): Promise<EventCollector<UpdateEvent>> {
    const collector = new EventCollector<UpdateEvent>(client(token), SUBSCRIBE);
    const probeSucceeded = (items: UpdateEvent[]) => items.some((e) => e.executionUpdated.status === 'SUCCEEDED');
    for (let i = 0; i < 20 && collector.items.length === 0; i++) {
      await gqlOk(kairos.url, token, CREATE_JOB, {
        input: { name: `probe-${i}`, schedule: { runAt: new Date().toISOString() }, target: { handler: 'noop' } },
      });
      await collector.waitFor((items) => items.length > 0, 500).catch(() => undefined);
    }
    await collector.waitFor(probeSucceeded, 10_000);
    return collector;
  }

  it('streams QUEUED, RUNNING and SUCCEEDED of a job firing every second, pages through its executions, and hides them from another tenant', async () => {
    const eventsA = await liveSubscription(tokenA);
    const eventsB = await liveSubscription(tokenB);

    const { createJob } = await gqlOk(kairos.url, tokenA, CREATE_JOB, {
      input: { name: 'every-second', schedule: { intervalSeconds: 1 }, target: { handler: 'noop' } },
    });
    const jobId: string = createJob.job.id;
    expect(createJob.job).toMatchObject({ name: 'every-second', status: 'ACTIVE', workload: 'IO_BOUND', schedule: { kind: 'INTERVAL', intervalSeconds: 1 } });

    const lifecycles = (items: UpdateEvent[]) => {
      const byExecution = new Map<string, string[]>();
      for (const { executionUpdated: e } of items) {
        if (e.execution.jobId !== jobId || e.status === 'SCHEDULED') continue;
        byExecution.set(e.execution.id, [...(byExecution.get(e.execution.id) ?? []), e.status]);
      }
      return byExecution;
    };
    const full = (items: UpdateEvent[]) => [...lifecycles(items).values()].filter((s) => s.join() === 'QUEUED,RUNNING,SUCCEEDED').length;
    const events = await eventsA.waitFor((items) => full(items) >= 3, 30_000);
    const byExecution = lifecycles(events);
    // Events of one execution arrive in order: every sequence seen is a prefix of the lifecycle.
    for (const statuses of byExecution.values()) {
      expect('QUEUED,RUNNING,SUCCEEDED'.startsWith(statuses.join())).toBe(true);
    }
    const succeeded = [...byExecution].filter(([, s]) => s.includes('SUCCEEDED')).map(([id]) => id);

    // Page through the job's executions two at a time: newest first, no duplicates, the succeeded ones included.
    const seen: { id: string; scheduledFor: string }[] = [];
    let after: string | null = null;
    for (let page = 0; page < 50; page++) {
      const data: any = await gqlOk(kairos.url, tokenA, EXECUTIONS, { first: 2, after, filter: { jobId } });
      const { edges, pageInfo } = data.executions;
      expect(pageInfo.hasPreviousPage).toBe(after !== null);
      seen.push(...edges.map((e: any) => e.node));
      for (const e of edges) expect(e.node.job).toEqual({ id: jobId, name: 'every-second' });
      if (!pageInfo.hasNextPage) break;
      after = pageInfo.endCursor;
    }
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    const times = seen.map((e) => Date.parse(e.scheduledFor));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    for (const id of succeeded) expect(seen.map((e) => e.id)).toContain(id);

    // Tenant B sees nothing of tenant A: not the job, not its executions, not its events.
    const other = await gql(kairos.url, tokenB, `query($id: ID!, $jobId: ID) { job(id: $id) { id } node(id: $id) { id } executions(filter: { jobId: $jobId }) { edges { node { id } } } }`, { id: jobId, jobId });
    expect(other.errors).toBeUndefined();
    expect(other.data).toEqual({ job: null, node: null, executions: { edges: [] } });
    const allOfB: any = await gqlOk(kairos.url, tokenB, `{ executions(first: 100) { edges { node { jobId } } } }`);
    expect(allOfB.executions.edges.map((e: any) => e.node.jobId)).not.toContain(jobId);
    const execution = await gql(kairos.url, tokenB, `query($id: ID!) { execution(id: $id) { id } }`, { id: succeeded[0] });
    expect(execution.data).toEqual({ execution: null });
    expect(eventsB.items.filter((e) => e.executionUpdated.execution.jobId === jobId)).toEqual([]);
    eventsA.stop();
    eventsB.stop();
  });

  it('starts a one-off job due 2 s after creation within 500 ms of its time', async () => {
    const events = await liveSubscription(tokenA);
    const runAt = new Date(Date.now() + 2000);
    const { createJob } = await gqlOk(kairos.url, tokenA, CREATE_JOB, {
      input: { name: 'one-off', schedule: { runAt: runAt.toISOString() }, target: { handler: 'noop' } },
    });
    const jobId: string = createJob.job.id;
    await events.waitFor((items) => items.some((e) => e.executionUpdated.execution.jobId === jobId && e.executionUpdated.status === 'SUCCEEDED'), 10_000);
    const data: any = await gqlOk(kairos.url, tokenA, EXECUTIONS, { first: 1, filter: { jobId } });
    const node = data.executions.edges[0]?.node;
    expect(node).toMatchObject({ status: 'SUCCEEDED', trigger: 'SCHEDULE', scheduledFor: runAt.toISOString(), attempt: 1 });
    process.stdout.write(`one-off start lag: ${node.startLagMs} ms\n`);
    expect(node.startLagMs).toBeGreaterThanOrEqual(0);
    expect(node.startLagMs).toBeLessThan(500);
    const job: any = await gqlOk(kairos.url, tokenA, `query($id: ID!) { job(id: $id) { status nextRunAt lastRunAt } }`, { id: createJob.job.id });
    expect(job.job).toMatchObject({ status: 'COMPLETED', nextRunAt: null });
    events.stop();
  });
});
