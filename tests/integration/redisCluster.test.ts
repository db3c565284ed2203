// Covers: src/config/redisClusterNodes.ts, src/executions/cancelExecution.ts, src/roles/connections.ts, src/roles/sharedServices.ts
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Cluster } from 'ioredis';
import { dropTestState, tokenFor, uniqueName } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { deploymentEnv, startProcess } from '../support/processes.js';
import { EXECUTION_FIELDS, waitUntil } from '../support/waitFor.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { REDIS_CLUSTER_NODES } from '../support/env.js';
import { CLUSTER_NODES, clusterClient, dropClusterKeys, masterPortOf, nodeClient, restartEmpty } from '../support/redisCluster.js';
import { leaseKey } from '../../src/scheduler/leaderLease.js';
import { QueueShards } from '../../src/queue/executionQueues.js';
import { CONFIG_DEFAULTS } from '../../src/config.js';
import { fromGlobalId } from '../../src/ids/globalId.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const EXECUTIONS = `query($jobId: ID) { executions(first: 100, filter: { jobId: $jobId }) { edges { node { ${EXECUTION_FIELDS} startLagMs } } } }`;
const SUBSCRIBE = `subscription { executionUpdated { status execution { id jobId } } }`;
const TRIGGER = `mutation($id: ID!, $payload: JSON) { triggerJob(id: $id, payload: $payload) { execution { id } } }`;
const CANCEL = `mutation($id: ID!) { cancelExecution(id: $id) { execution { id status } } }`;
const LEASE_TTL_MS = 3000;

type Event = { executionUpdated: { status: string; execution: { id: string; jobId: string } } };

/**
 * Kairos unchanged on a three-master Redis Cluster (scripts/redis-cluster.sh, which services.sh runs
 * for npm test and npm run test:file): real processes (api+worker, two schedulers) with
 * REDIS_CLUSTER_NODES and the cluster's default queue shards; tenants are picked so that their
 * queues sit on all three masters.
 */
describe('on a Redis Cluster', () => {
  const name = uniqueName('rcluster');
  const shards = new QueueShards(CONFIG_DEFAULTS.queueShardsCluster);
  const env = deploymentEnv(
    { dbName: name, prefix: name },
    {
      REDIS_CLUSTER_NODES,
      LEASE_TTL_MS: String(LEASE_TTL_MS),
      RECONCILE_EVERY_MS: '1000',
      RECONCILE_GRACE_MS: '1000',
      WORKER_WEDGED_MS: '3000',
    },
  );
  const children: ChildProcess[] = [];
  const collectors: EventCollector<Event>[] = [];
  const clients: ReturnType<typeof wsClient>[] = [];
  /** One tenant per master: tenant id, the master port serving its IO queue, its token and its every-second job. */
  const tenants: { id: string; port: number; token: string; jobId: string; events: EventCollector<Event> }[] = [];
  let cluster: Cluster;
  let url = '';

  const spawnRole = async (roles: string) => {
    const started = await startProcess({ ...env, ROLES: roles });
    children.push(started.child);
    return started;
  };
  const leaderPid = async () => {
    const holder = await cluster.get(leaseKey(name));
    return holder ? Number(holder.split('-').at(-2)) : undefined;
  };
  const executionsOf = async (t: (typeof tenants)[number]) =>
    (await gqlOk(url, t.token, EXECUTIONS, { jobId: t.jobId })).executions.edges.map((e: any) => e.node).reverse();
  /** Waits until the tenant's job has succeeded for an occurrence scheduled after `since`. */
  const runsAfter = (t: (typeof tenants)[number], since: number, timeoutMs: number) =>
    waitUntil(
      `a run of ${t.id}'s job after ${new Date(since).toISOString()}`,
      async () => {
        const all = await executionsOf(t);
        return all.some((e: any) => Date.parse(e.scheduledFor) > since && e.status === 'SUCCEEDED') ? all : undefined;
      },
      timeoutMs,
      250,
    );

  beforeAll(async () => {
    cluster = clusterClient();
    const ports = new Set(CLUSTER_NODES.map((n) => n.port));
    const picked = new Map<number, string>();
    for (let i = 0; picked.size < ports.size && i < 1000; i++) {
      const id = uniqueName(`rct${i}`);
      const port = await masterPortOf(cluster, shards.queueOf('IO_BOUND', id));
      if (!picked.has(port)) picked.set(port, id);
    }
    expect(picked.size).toBe(3);

    url = (await spawnRole('api,worker')).url;
    await spawnRole('scheduler');
    await spawnRole('scheduler');
    for (const [port, id] of picked) {
      const token = tokenFor(id, 'member');
      // A subscription known to be live: the server registers it asynchronously, so probe one-offs until one is seen.
      const client = wsClient(url, token);
      clients.push(client);
      const events = new EventCollector<Event>(client, SUBSCRIBE);
      collectors.push(events);
      for (let i = 0; i < 20 && events.items.length === 0; i++) {
        await gqlOk(url, token, CREATE, {
          input: { name: `probe-${i}`, schedule: { runAt: new Date().toISOString() }, target: { handler: 'noop' } },
        });
        await events.waitFor((items) => items.length > 0, 500).catch(() => undefined);
      }
      const { createJob } = await gqlOk(url, token, CREATE, {
        input: { name: 'every-second', schedule: { intervalSeconds: 1 }, target: { handler: 'noop' } },
      });
      tenants.push({ id, port, token, jobId: createJob.job.id, events });
    }
  }, 90_000);

  afterAll(async () => {
    for (const c of collectors) c.stop();
    await Promise.all(clients.map(async (c) => await c.dispose()));
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => once(c, 'exit')));
    await cluster?.quit().catch(() => cluster.disconnect());
    await dropTestState(name, name);
    await dropClusterKeys(name);
  }, 60_000);

  it("creates, runs and streams each tenant's executions, with the queues on every master", async () => {
    for (const t of tenants) {
      const lifecycles = (items: Event[]) => {
        const byExecution = new Map<string, string[]>();
        for (const { executionUpdated: e } of items) {
          if (e.execution.jobId !== t.jobId || e.status === 'SCHEDULED') continue;
          byExecution.set(e.execution.id, [...(byExecution.get(e.execution.id) ?? []), e.status]);
        }
        return [...byExecution.values()];
      };
      const events = await t.events.waitFor(
        (items) => lifecycles(items).filter((s) => s.join() === 'QUEUED,RUNNING,SUCCEEDED').length >= 2,
        30_000,
      );
      // One execution's events arrive in order.
      for (const statuses of lifecycles(events)) expect('QUEUED,RUNNING,SUCCEEDED'.startsWith(statuses.join())).toBe(true);
      // No other tenant's job in this tenant's stream.
      const ownJobs = new Set(events.map((e) => e.executionUpdated.execution.jobId));
      for (const other of tenants.filter((o) => o !== t)) expect(ownJobs.has(other.jobId)).toBe(false);
    }
    // A figure, not an assertion: start lag of the runs so far, queues on three masters.
    const lags = (await Promise.all(tenants.map(executionsOf)))
      .flat()
      .filter((e: any) => e.status === 'SUCCEEDED')
      .map((e: any) => e.startLagMs as number)
      .sort((a, b) => a - b);
    process.stdout.write(
      `redis cluster: ${lags.length} runs, start lag p50 ${lags[Math.floor(lags.length / 2)]} ms, max ${lags.at(-1)} ms\n`,
    );
    // Each tenant's queue shard is served by a different master, and each master holds keys of this deployment.
    expect(new Set(tenants.map((t) => t.port)).size).toBe(3);
    for (const { port } of CLUSTER_NODES) {
      const node = nodeClient(port);
      const [, keys] = await node.scan('0', 'MATCH', `${name}:*`, 'COUNT', 10_000);
      node.disconnect();
      expect(keys.length).toBeGreaterThan(0);
    }
  }, 60_000);

  it("cancels a running attempt through the cluster's pub/sub", async () => {
    const t = tenants[1];
    const { createJob } = await gqlOk(url, t.token, CREATE, {
      input: { name: 'sleeper', schedule: { intervalSeconds: 31_536_000 }, target: { handler: 'sleep' } },
    });
    const { triggerJob } = await gqlOk(url, t.token, TRIGGER, { id: createJob.job.id, payload: { ms: 60_000 } });
    const id = triggerJob.execution.id;
    const reached = (status: string) =>
      t.events.waitFor(
        (items) => items.some((e) => e.executionUpdated.execution.id === id && e.executionUpdated.status === status),
        15_000,
      );
    await reached('RUNNING');
    await gqlOk(url, t.token, CANCEL, { id });
    await reached('CANCELLED');
    const { node } = await gqlOk(url, t.token, `query($id: ID!) { node(id: $id) { ... on Execution { status attempts { outcome } } } }`, {
      id,
    });
    expect(node).toMatchObject({ status: 'CANCELLED', attempts: [{ outcome: 'CANCELLED' }] });
  }, 30_000);

  it('hands the lease to the standby when the leader is SIGKILLed, and every occurrence runs once', async () => {
    const leader = await waitUntil('a leader', leaderPid, 10_000);
    const killedAt = Date.now();
    children.find((c) => c.pid === leader)!.kill('SIGKILL');
    const next = await waitUntil(
      'a new leader',
      async () => {
        const pid = await leaderPid();
        return pid && pid !== leader ? pid : undefined;
      },
      LEASE_TTL_MS * 3,
      20,
    );
    expect(next).not.toBe(leader);
    // Every occurrence from creation to a few seconds after the failover: exactly one execution each, all run.
    const until = Date.now() + 3000;
    for (const t of tenants) {
      const due = await waitUntil(
        `${t.id}'s job to run past the failover`,
        async () => {
          const due = (await executionsOf(t)).filter((e: any) => Date.parse(e.scheduledFor) <= until);
          return Date.now() > until + 1000 && due.every((e: any) => e.status === 'SUCCEEDED') ? due : undefined;
        },
        30_000,
        250,
      );
      const times = due.map((e: any) => Date.parse(e.scheduledFor));
      expect(times.at(-1)).toBeGreaterThan(killedAt);
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(1000);
    }
    // The killed scheduler is replaced, so the next test has a standby again.
    await spawnRole('scheduler');
  }, 60_000);

  it('heals a master restarted empty: the executions whose queue entries it held still run, re-enqueued by reconcile', async () => {
    // A master that holds a tenant's queue but not the lease: the leader stays, so only reconcile can heal it.
    const leasePort = await masterPortOf(cluster, leaseKey(name));
    const t = tenants.find((x) => x.port !== leasePort)!;
    const leader = await waitUntil('a leader', leaderPid, 10_000);
    const queue = shards.queueOf('IO_BOUND', t.id);
    // A one-off due in 6 s: materialised at once, its delayed entry waiting on the master that will lose it.
    const runAt = new Date(Date.now() + 6000);
    const { createJob } = await gqlOk(url, t.token, CREATE, {
      input: { name: 'one-off', schedule: { runAt: runAt.toISOString() }, target: { handler: 'noop' } },
    });
    const oneOff = { ...t, jobId: createJob.job.id };
    const [execution] = await waitUntil(
      'the one-off to be queued',
      async () => {
        const all = await executionsOf(oneOff);
        return all.length === 1 && all[0].status === 'QUEUED' ? all : undefined;
      },
      5000,
    );
    const entryKey = `${name}:${queue}:${fromGlobalId(execution.id, 'Execution')!.id.toHexString()}`;
    expect(await cluster.exists(entryKey)).toBe(1);

    const restartedAt = Date.now();
    await restartEmpty(t.port);
    // Its data is gone (reconcile re-enqueues only past the one-off's time plus its grace).
    expect(await cluster.exists(entryKey)).toBe(0);

    const node = await waitUntil(
      'the one-off to run anyway',
      async () => {
        const [e] = await executionsOf(oneOff);
        return e?.status === 'SUCCEEDED' ? e : undefined;
      },
      30_000,
      250,
    );
    expect(node).toMatchObject({ status: 'SUCCEEDED', scheduledFor: runAt.toISOString(), attempt: 1 });
    expect(await leaderPid()).toBe(leader);
    // Every tenant's every-second job runs on after the restart, whichever master its queue is on,
    // and its events still reach the subscriber (ioredis resubscribes if its node was the one restarted).
    for (const other of tenants) {
      const runs = await runsAfter(other, restartedAt + 2000, 30_000);
      const later = new Set(runs.filter((e: any) => Date.parse(e.scheduledFor) > restartedAt + 2000).map((e: any) => e.id));
      await other.events.waitFor(
        (items) => items.some((e) => later.has(e.executionUpdated.execution.id) && e.executionUpdated.status === 'SUCCEEDED'),
        15_000,
      );
    }
  }, 90_000);
});
