// Covers: src/roles/schedulerFactory.ts, src/scheduler/schedulerRole.ts
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { dropTestState, tokenFor, uniqueName } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { deploymentEnv, startProcess } from '../support/processes.js';
import { EXECUTION_FIELDS, waitUntil } from '../support/waitFor.js';
import { REDIS_URL } from '../support/env.js';
import { leaseKey } from '../../src/scheduler/leaderLease.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const EXECUTIONS = `query($jobId: ID) { executions(first: 100, filter: { jobId: $jobId }) { edges { node { ${EXECUTION_FIELDS} } } } }`;
const LEASE_TTL_MS = 3000;

/**
 * Two (then three) scheduler processes share a deployment with one api+worker process; the test
 * stops or kills the leader with real signals and watches the lease move and the occurrences.
 */
describe('scheduler leader failover across processes', () => {
  const name = uniqueName('failover');
  const token = tokenFor(uniqueName('failover'), 'member');
  const redis = new Redis(REDIS_URL);
  const children: ChildProcess[] = [];
  const env = deploymentEnv({ dbName: name, prefix: name }, { LEASE_TTL_MS: String(LEASE_TTL_MS) });
  let url = '';
  const jobIds: string[] = [];

  const spawnRole = async (roles: string) => {
    const started = await startProcess({ ...env, ROLES: roles });
    children.push(started.child);
    return started;
  };
  /** The pid of the process holding the lease (its candidate id is host-pid-random). */
  const leaderPid = async () => {
    const holder = await redis.get(leaseKey(name));
    return holder ? Number(holder.split('-').at(-2)) : undefined;
  };
  const schedulerByPid = (pid: number) => children.find((c) => c.pid === pid)!;

  beforeAll(async () => {
    url = (await spawnRole('api,worker')).url;
    await spawnRole('scheduler');
    await spawnRole('scheduler');
    for (const i of [1, 2, 3]) {
      const { createJob } = await gqlOk(url, token, CREATE, {
        input: { name: `tick-${i}`, schedule: { intervalSeconds: 1 }, target: { handler: 'noop' } },
      });
      jobIds.push(createJob.job.id);
    }
  }, 60_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => once(c, 'exit')));
    redis.disconnect();
    await dropTestState(name, name);
  });

  /** Waits for a leader other than `previous` and returns its pid and how long it took. */
  async function nextLeader(previous: number, since: number) {
    const pid = await waitUntil(
      'a new leader',
      async () => {
        const pid = await leaderPid();
        return pid && pid !== previous ? pid : undefined;
      },
      LEASE_TTL_MS * 3,
      20,
    );
    return { pid, afterMs: Date.now() - since };
  }

  it('hands the lease to the standby at once when the leader stops on SIGTERM', async () => {
    const leader = await waitUntil('a leader', leaderPid, 10_000);
    const child = schedulerByPid(leader);
    const exited = once(child, 'exit');
    const stoppedAt = Date.now();
    child.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
    const { afterMs } = await nextLeader(leader, stoppedAt);
    // Released, not expired: the standby takes it at its next try (every TTL/3), well before the TTL.
    expect(afterMs).toBeLessThan(LEASE_TTL_MS);
  });

  it('hands the lease over within the TTL when the leader is SIGKILLed, losing and doubling no occurrence', async () => {
    await spawnRole('scheduler');
    const leader = await waitUntil('a leader', leaderPid, 10_000);
    const killedAt = Date.now();
    schedulerByPid(leader).kill('SIGKILL');
    const { afterMs } = await nextLeader(leader, killedAt);
    expect(afterMs).toBeLessThan(LEASE_TTL_MS + LEASE_TTL_MS / 3 + 1000);

    // Every occurrence from creation to a few seconds after the failover: exactly one execution each, all run.
    const until = Date.now() + 3000;
    for (const jobId of jobIds) {
      const due = await waitUntil(
        `job ${jobId} to run past the failover`,
        async () => {
          const all = (await gqlOk(url, token, EXECUTIONS, { jobId })).executions.edges.map((e: any) => e.node).reverse();
          const due = all.filter((e: any) => Date.parse(e.scheduledFor) <= until);
          return Date.now() > until + 1000 && due.every((e: any) => e.status === 'SUCCEEDED') ? due : undefined;
        },
        30_000,
        250,
      );
      const times = due.map((e: any) => Date.parse(e.scheduledFor));
      expect(times.length).toBeGreaterThan(5);
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(1000);
      expect(new Set(due.map((e: any) => e.trigger))).toEqual(new Set(['SCHEDULE']));
    }
  }, 60_000);
});
