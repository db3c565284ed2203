// Covers: src/roles/apiFactory.ts, src/roles/closers.ts, src/roles/schedulerFactory.ts, src/roles/sharedServices.ts,
// src/roles/workerFactory.ts
import { spawn, type ChildProcess } from 'node:child_process';
import { mongoUrlFor, startProcess } from '../support/processes.js';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from '@jest/globals';
import { dropTestState, tokenFor, uniqueName } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { MONGO_URL, REDIS_URL, TEST_JWT_SECRET } from '../support/env.js';
import { setTimeout as sleep } from 'node:timers/promises';

describe('the kairos process', () => {
  const name = uniqueName('proc');
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await dropTestState(name, name);
  });

  it('refuses to start on invalid configuration, naming the variable', async () => {
    const child = spawn(process.execPath, ['dist/main.js'], {
      env: { PATH: process.env.PATH ?? '', JWT_SECRET: TEST_JWT_SECRET, PORT: 'eighty' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(stderr).toContain('PORT');
  });

  it('runs all roles, serves a job end to end, and stops cleanly on SIGTERM', async () => {
    const mongoUrl = mongoUrlFor(MONGO_URL, name);
    const { child, url } = await startProcess({
      MONGO_URL: mongoUrl,
      REDIS_URL,
      REDIS_PREFIX: name,
      JWT_SECRET: TEST_JWT_SECRET,
      PORT: '0',
      ALLOW_PRIVATE_TARGETS: 'true',
    });
    children.push(child);
    expect((await fetch(url.replace(/graphql$/, 'readyz'))).status).toBe(200);
    const token = tokenFor(uniqueName('proc'), 'member');
    const created = await gqlOk(url, token, `mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }`, {
      i: { name: 'now', schedule: { runAt: new Date().toISOString() }, target: { handler: 'noop' } },
    });
    let status = '';
    for (let i = 0; i < 100 && status !== 'SUCCEEDED'; i++) {
      const data = await gqlOk(url, token, `query($id: ID) { executions(filter: { jobId: $id }) { edges { node { status } } } }`, {
        id: created.createJob.job.id,
      });
      status = data.executions.edges[0]?.node.status ?? '';
      if (status !== 'SUCCEEDED') await sleep(100);
    }
    expect(status).toBe('SUCCEEDED');
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
  });
});
