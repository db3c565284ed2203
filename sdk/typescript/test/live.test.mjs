// The client against a running Kairos (scripts/with-kairos.mjs sets KAIROS_URL and KAIROS_TOKEN):
// create, watch to SUCCEEDED, page (history first), the error codes, and a subscription that survives a dropped connection.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect } from 'node:net';
import { KairosClient, KairosError } from '../dist/index.js';

const url = process.env.KAIROS_URL;
const token = process.env.KAIROS_TOKEN;
if (!url || !token) throw new Error('KAIROS_URL and KAIROS_TOKEN must be set: run through scripts/with-kairos.mjs');

const client = new KairosClient({ url, token });
after(() => client.close());

const later = () => new Date(Date.now() + 3600_000).toISOString();

/** Reads `iterator` until `predicate(event)`, failing after `timeoutMs`. */
async function nextMatching(iterator, predicate, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let timer;
    const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no matching event within ${timeoutMs} ms`)), Math.max(1, deadline - Date.now())); });
    const result = await Promise.race([iterator.next(), timeout]).finally(() => clearTimeout(timer));
    if (result.done) throw new Error('subscription ended');
    if (predicate(result.value)) return result.value;
  }
}

/**
 * The server sets a subscription up after acknowledging the connection, so an event may be
 * published before it listens: trigger the job until the watcher sees one of the triggered runs.
 */
async function triggerUntilSeen(iterator, jobId, timeoutMs = 15_000) {
  const triggered = new Set();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    triggered.add((await client.triggerJob(jobId)).id);
    try {
      return await nextMatching(iterator, (e) => triggered.has(e.execution.id), Math.min(1000, Math.max(1, deadline - Date.now())));
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
  }
}

test('create a job, watch a run of it to SUCCEEDED, page through its executions', async () => {
  const job = await client.createJob({ name: 'sdk-watch', schedule: { runAt: later() }, target: { handler: 'noop' }, payload: { n: 1 } });
  assert.equal(job.status, 'ACTIVE');
  assert.equal(job.target.__typename, 'HandlerTarget');
  const watch = client.watchExecutions({ jobId: job.id });
  const first = await triggerUntilSeen(watch, job.id);
  const done = first.status === 'SUCCEEDED' ? first : await nextMatching(watch, (e) => e.execution.id === first.execution.id && e.status === 'SUCCEEDED', 10_000);
  assert.equal(done.execution.jobId, job.id);
  assert.equal(done.execution.attempts.length, 1);
  assert.equal(done.execution.attempts[0].outcome, 'SUCCEEDED');
  await watch.return();

  for (let i = 0; i < 4; i++) await client.triggerJob(job.id);
  const seen = [];
  // phase null: everything, as some of the runs just triggered may still be queued.
  for await (const execution of client.executionsAll({ jobId: job.id, phase: null, pageSize: 2 })) seen.push(execution);
  assert.ok(seen.length >= 5, `paged ${seen.length} executions`);
  assert.equal(new Set(seen.map((e) => e.id)).size, seen.length);
  const times = seen.map((e) => Date.parse(e.scheduledFor));
  assert.deepEqual([...times].sort((a, b) => b - a), times);
  assert.ok(seen.every((e) => e.job?.id === job.id && e.trigger === 'MANUAL'));

  const page = await client.executions({ first: 2, filter: { jobId: job.id } });
  assert.equal(page.edges.length, 2);
  assert.equal(page.pageInfo.hasNextPage, true);
  assert.equal((await client.execution(done.execution.id))?.status, 'SUCCEEDED');
  assert.equal((await client.node(job.id))?.__typename, 'Job');
});

test('a job running every 2 s lists its history first, and its upcoming occurrences soonest first on request', async () => {
  const job = await client.createJob({ name: 'sdk-history-first', schedule: { intervalSeconds: 2 }, target: { handler: 'noop' } });
  try {
    const watch = client.watchExecutions({ jobId: job.id, statuses: ['SUCCEEDED'] });
    await nextMatching(watch, () => true, 15_000);
    await watch.return();
    const upcoming = new Set(['SCHEDULED', 'QUEUED']);
    // As the API lists them, the occurrences materialised ahead of now come first.
    const raw = await client.executions({ first: 1, filter: { jobId: job.id } });
    assert.ok(upcoming.has(raw.edges[0].node.status), `the API's newest is ${raw.edges[0].node.status}`);

    const history = [];
    for await (const e of client.executionsAll({ jobId: job.id, pageSize: 2 })) history.push(e);
    assert.ok(history.length >= 1);
    assert.ok(history.every((e) => !upcoming.has(e.status)), history.map((e) => e.status).join());
    assert.ok(history.some((e) => e.status === 'SUCCEEDED'));
    const times = history.map((e) => Date.parse(e.scheduledFor));
    assert.deepEqual([...times].sort((a, b) => b - a), times);

    const soonest = [];
    for await (const e of client.executionsAll({ jobId: job.id, phase: 'UPCOMING', pageSize: 2 })) if (soonest.push(e) === 5) break;
    assert.ok(soonest.length >= 2, `${soonest.length} upcoming`);
    assert.ok(soonest.every((e) => upcoming.has(e.status)), soonest.map((e) => e.status).join());
    const upcomingTimes = soonest.map((e) => Date.parse(e.scheduledFor));
    assert.deepEqual([...upcomingTimes].sort((a, b) => a - b), upcomingTimes);
  } finally {
    await client.deleteJob(job.id);
  }
});

test('every job method: get, list, update, pause, resume, preview, delete', async () => {
  const job = await client.createJob({ name: 'sdk-methods', schedule: { cron: '0 9 * * 1-5', timezone: 'Europe/Paris' }, target: { handler: 'noop' } });
  assert.equal((await client.job(job.id))?.name, 'sdk-methods');
  const names = [];
  for await (const j of client.jobsAll({ namePrefix: 'sdk-methods', pageSize: 1 })) names.push(j.name);
  assert.deepEqual(names, ['sdk-methods']);
  assert.equal((await client.updateJob({ id: job.id, name: 'sdk-methods-2', description: 'renamed' })).description, 'renamed');
  assert.equal((await client.pauseJob(job.id)).status, 'PAUSED');
  assert.equal((await client.resumeJob(job.id)).status, 'ACTIVE');
  const times = await client.previewSchedule({ cron: '0 9 * * 1-5', timezone: 'Europe/Paris' }, 3);
  assert.equal(times.length, 3);
  assert.match(times[0].local, /T09:00:00(\.000)?\+0[12]:00$/);
  assert.equal(await client.deleteJob(job.id), job.id);
  assert.equal(await client.job(job.id), null);
  const viewer = await client.viewer();
  assert.equal(viewer.tenantId, process.env.KAIROS_TENANT);
  assert.equal(viewer.role, 'ADMIN');
});

test('errors carry their code: NOT_FOUND, BAD_USER_INPUT, UNAUTHENTICATED over HTTP and WebSocket', async () => {
  const missing = await client.pauseJob('job_doesnotexist').catch((e) => e);
  assert.ok(missing instanceof KairosError);
  assert.equal(missing.code, 'NOT_FOUND');
  const bad = await client.previewSchedule({ cron: 'not a cron' }).catch((e) => e);
  assert.equal(bad.code, 'BAD_USER_INPUT');

  const wrong = new KairosClient({ url, token: 'not-a-valid-token' });
  const unauthenticated = await wrong.viewer().catch((e) => e);
  assert.equal(unauthenticated.code, 'UNAUTHENTICATED');
  const watchError = await wrong.watchExecutions().next().catch((e) => e);
  assert.ok(watchError instanceof KairosError);
  assert.equal(watchError.code, 'UNAUTHENTICATED');
  await wrong.close();
});

test('rotateWebhookSecret sends the grace it is given (the server refuses a bad one), and revokePreviousWebhookSecret ends it', async () => {
  const first = await client.rotateWebhookSecret();
  const second = await client.rotateWebhookSecret({ gracePeriodSeconds: 60 });
  assert.match(second, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(second, first);
  for (const gracePeriodSeconds of [-1, 604_801]) {
    const refused = await client.rotateWebhookSecret({ gracePeriodSeconds }).catch((e) => e);
    assert.ok(refused instanceof KairosError);
    assert.equal(refused.code, 'BAD_USER_INPUT');
  }
  const revoked = await client.revokePreviousWebhookSecret();
  assert.equal(revoked.previousSecretExpiresAt, null);
  assert.ok(revoked.rotatedAt);
  assert.deepEqual(await client.revokePreviousWebhookSecret(), revoked);
});

test('return() ends a watch at once, even while next() waits', async () => {
  const watch = client.watchExecutions({ jobId: 'job_nothing_happens_here' });
  const pending = watch.next();
  await watch.return();
  assert.deepEqual(await pending, { value: undefined, done: true });
  assert.deepEqual(await watch.next(), { value: undefined, done: true });
});

test('a watch reconnects and resubscribes after its connection drops', async () => {
  // A TCP proxy in front of Kairos whose connections the test cuts, as a network failure would.
  const target = new URL(url);
  const sockets = new Set();
  const proxy = createServer((downstream) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [downstream, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => { sockets.delete(s); downstream.destroy(); upstream.destroy(); });
    }
    downstream.pipe(upstream).pipe(downstream);
  });
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxied = new KairosClient({ url: `http://127.0.0.1:${proxy.address().port}${target.pathname}`, token, reconnect: { initialDelayMs: 100 } });
  try {
    const job = await client.createJob({ name: 'sdk-reconnect', schedule: { runAt: later() }, target: { handler: 'noop' } });
    const watch = proxied.watchExecutions({ jobId: job.id, statuses: ['SUCCEEDED'] });
    await triggerUntilSeen(watch, job.id);
    const cut = sockets.size;
    assert.ok(cut >= 2, 'the WebSocket went through the proxy');
    for (const s of sockets) s.destroy();
    const again = await triggerUntilSeen(watch, job.id, 20_000);
    assert.equal(again.status, 'SUCCEEDED');
    await watch.return();
  } finally {
    await proxied.close();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => proxy.close(resolve));
  }
});

test('cancel, then retry, the executions of a filter in bulk, watching each operation to its end; an operationId repeated does nothing twice', async () => {
  const job = await client.createJob({ name: 'sdk-bulk', schedule: { runAt: later() }, target: { handler: 'sleep' }, payload: { ms: 60_000 } });
  await client.triggerJob(job.id);
  const untilEnd = async (operation) => {
    let last = operation;
    for await (const progress of client.watchBulkOperation(operation.id)) last = progress;
    return last;
  };
  const cancel = await client.cancelExecutions({ jobId: job.id });
  assert.equal(cancel.kind, 'CANCEL');
  assert.equal(cancel.total, 1);
  assert.deepEqual(pick(await untilEnd(cancel)), { status: 'SUCCEEDED', total: 1, done: 1, failed: 0 });

  const operationId = `sdk-bulk-${Date.now()}`;
  const retry = await client.retryExecutions({ jobId: job.id, statuses: ['CANCELLED'] }, { operationId });
  assert.equal(retry.operationId, operationId);
  assert.deepEqual(pick(await untilEnd(retry)), { status: 'SUCCEEDED', total: 1, done: 1, failed: 0 });
  const again = await client.retryExecutions({ jobId: job.id, statuses: ['CANCELLED'] }, { operationId });
  assert.equal(again.id, retry.id);
  assert.equal((await client.bulkOperation(retry.id)).done, 1);
  // The job's change history, newest first: the repeated retry, which did nothing, recorded nothing.
  const changes = await client.changes({ first: 10, filter: { jobId: job.id } });
  assert.deepEqual(
    changes.edges.map((e) => e.node.action),
    ['RETRY_EXECUTIONS', 'CANCEL_EXECUTIONS', 'TRIGGER_JOB', 'CREATE_JOB'],
  );
  // The retried run sleeps a minute: end it.
  await untilEnd(await client.cancelExecutions({ jobId: job.id }));
});

function pick({ status, total, done, failed }) {
  return { status, total, done, failed };
}
