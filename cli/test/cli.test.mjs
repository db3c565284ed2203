// The real `kairos` binary against a running Kairos (scripts/with-kairos.mjs sets KAIROS_URL and
// KAIROS_TOKEN): every command, its table and --json output, the config file and the exit codes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'kairos.js');
const { KAIROS_URL: url, KAIROS_TOKEN: token } = process.env;
if (!url || !token) throw new Error('KAIROS_URL and KAIROS_TOKEN must be set: run through scripts/with-kairos.mjs');

let home;
let env;
before(() => {
  home = mkdtempSync(join(tmpdir(), 'kairos-cli-'));
  // Only what `kairos login` stores: no credential in the environment.
  env = { PATH: process.env.PATH, KAIROS_CONFIG: join(home, 'kairos', 'config.json') };
});
after(() => rmSync(home, { recursive: true, force: true }));

/** Runs the binary; resolves with its exit code and output (never rejects on a non-zero exit). */
function kairos(...args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}
async function ok(...args) {
  const result = await kairos(...args);
  assert.equal(result.code, 0, `kairos ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}
const json = async (...args) => JSON.parse(await ok('--json', ...args));

/** Polls `check` until it holds, failing after `timeoutMs`. */
async function until(check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('--help works on every command', async () => {
  const commands = [[], ['login'], ['jobs'], ['jobs', 'ls'], ['jobs', 'get'], ['jobs', 'create'], ['jobs', 'update'], ['jobs', 'pause'], ['jobs', 'resume'], ['jobs', 'trigger'], ['jobs', 'backfill'], ['jobs', 'delete'], ['executions'], ['executions', 'ls'], ['executions', 'get'], ['executions', 'cancel'], ['executions', 'retry'], ['watch'], ['preview']];
  for (const command of commands) {
    const out = await ok(...command, '--help');
    assert.match(out, new RegExp(`Usage: kairos ${command.join(' ')}`.trim()));
  }
});

test('before login: exit 3 (unauthenticated); a bad login: exit 3 and nothing stored; usage errors: exit 2', async () => {
  const notLoggedIn = await kairos('jobs', 'ls');
  assert.equal(notLoggedIn.code, 3);
  assert.match(notLoggedIn.stderr, /not logged in/);
  const bad = await kairos('login', '--url', url, '--token', 'wrong');
  assert.equal(bad.code, 3);
  assert.match(bad.stderr, /UNAUTHENTICATED/);
  assert.throws(() => statSync(env.KAIROS_CONFIG));
  assert.equal((await kairos('jobs', 'frobnicate')).code, 2);
  assert.equal((await kairos('jobs', 'ls', '--limit', 'many')).code, 2);
  assert.equal((await kairos()).code, 2);
});

test('login stores URL and token in a 0600 file; the commands then use it', async () => {
  const out = await ok('login', '--url', url, '--token', token);
  assert.match(out, /Logged in to .* \(tenant .*, ADMIN\)/);
  assert.equal(statSync(env.KAIROS_CONFIG).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(readFileSync(env.KAIROS_CONFIG, 'utf8')), { url, token });
});

test('jobs: create, get, ls, update, pause, resume, trigger, delete; watch; executions ls, get, cancel, retry', async () => {
  await ok('login', '--url', url, '--token', token);
  assert.equal((await kairos('jobs', 'create', '--name', 'x')).code, 2, 'create without a schedule');
  const future = new Date(Date.now() + 3600_000).toISOString();
  const job = await json('jobs', 'create', '--name', 'cli-job', '--at', future, '--handler', 'noop', '--payload', '{"a":1}');
  assert.equal(job.status, 'ACTIVE');
  assert.deepEqual(job.payload, { a: 1 });
  assert.match(await ok('jobs', 'get', job.id), new RegExp(`name\\s+cli-job[\\s\\S]*target\\s+handler noop`));
  const table = await ok('jobs', 'ls', '--name-prefix', 'cli-');
  assert.match(table.split('\n')[0], /^ID\s+NAME\s+STATUS\s+SCHEDULE/);
  assert.match(table, new RegExp(`${job.id}\\s+cli-job\\s+ACTIVE\\s+once at`));
  assert.equal((await json('jobs', 'update', job.id, '--name', 'cli-job-2', '--description', 'renamed')).name, 'cli-job-2');
  assert.match(await ok('jobs', 'pause', job.id), /PAUSED/);
  assert.match(await ok('jobs', 'resume', job.id), /ACTIVE/);

  // watch: started first; triggers repeat until it has printed one (it subscribes asynchronously).
  const watcher = spawn(process.execPath, [bin, '--json', 'watch', '--job', job.id, '--status', 'SUCCEEDED', '--count', '1'], { env });
  let watched = '';
  watcher.stdout.on('data', (chunk) => (watched += chunk));
  const watcherExit = new Promise((resolve) => watcher.once('exit', resolve));
  const triggered = [];
  const deadline = Date.now() + 20_000;
  while (!watched && Date.now() < deadline) {
    triggered.push((await json('jobs', 'trigger', job.id)).id);
    await Promise.race([watcherExit, new Promise((resolve) => setTimeout(resolve, 500))]);
  }
  assert.equal(await watcherExit, 0);
  const event = JSON.parse(watched.trim());
  assert.equal(event.status, 'SUCCEEDED');
  assert.ok(triggered.includes(event.execution.id));

  const executions = await json('executions', 'ls', '--job', job.id);
  assert.ok(executions.length >= 1);
  assert.ok(executions.every((e) => e.jobId === job.id && e.trigger === 'MANUAL'));
  assert.match(await ok('executions', 'get', event.execution.id), /status\s+SUCCEEDED[\s\S]*NUMBER\s+OUTCOME[\s\S]*1\s+SUCCEEDED/);
  const conflict = await kairos('executions', 'retry', event.execution.id);
  assert.equal(conflict.code, 9, 'retrying a SUCCEEDED execution is a CONFLICT');

  // cancel a long run, then retry it.
  const sleeper = await json('jobs', 'create', '--name', 'cli-sleeper', '--at', future, '--handler', 'sleep', '--payload', '{"ms":60000}');
  const run = await json('jobs', 'trigger', sleeper.id);
  // A running attempt is aborted on its worker: the answer may still say RUNNING, or QUEUED while the
  // attempt's start is not written yet (the deferred claim).
  assert.match((await json('executions', 'cancel', run.id)).status, /^(QUEUED|RUNNING|CANCELLED)$/);
  await until(async () => (await json('executions', 'get', run.id)).status === 'CANCELLED', 10_000);
  assert.match(await ok('executions', 'retry', run.id), /QUEUED|RUNNING|SCHEDULED/);
  await ok('executions', 'cancel', run.id);

  assert.match(await ok('jobs', 'delete', job.id), new RegExp(`deleted ${job.id}`));
  await ok('jobs', 'delete', sleeper.id);
  const gone = await kairos('jobs', 'get', job.id);
  assert.equal(gone.code, 5);
  assert.match(gone.stderr, /NOT_FOUND/);
  const goneJson = await kairos('--json', 'jobs', 'pause', job.id);
  assert.equal(goneJson.code, 5);
  assert.equal(JSON.parse(goneJson.stderr).error.code, 'NOT_FOUND');
});

test('executions cancel and retry over a filter: a bulk operation, its progress printed with --wait; an operation id repeated does nothing twice', async () => {
  await ok('login', '--url', url, '--token', token);
  const future = new Date(Date.now() + 3600_000).toISOString();
  const sleeper = await json('jobs', 'create', '--name', 'cli-bulk', '--at', future, '--handler', 'sleep', '--payload', '{"ms":60000}');
  await json('jobs', 'trigger', sleeper.id);
  const usage = await kairos('executions', 'retry');
  assert.equal(usage.code, 2, 'neither an id nor a filter');
  assert.match(usage.stderr, /give an execution id, or a filter/);
  const cancelled = await ok('executions', 'cancel', '--job', sleeper.id, '--wait');
  assert.match(cancelled, /SUCCEEDED\s+1\/1 done/);
  assert.match(cancelled, /kind\s+CANCEL/);
  const key = `cli-bulk-${Date.now()}`;
  const started = await json('executions', 'retry', '--job', sleeper.id, '--status', 'CANCELLED', '--operation-id', key);
  assert.equal(started.kind, 'RETRY');
  assert.equal(started.total, 1);
  const lines = (await ok('--json', 'executions', 'retry', '--job', sleeper.id, '--status', 'CANCELLED', '--operation-id', key, '--wait')).trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(lines.every((l) => l.id === started.id), 'the same operation');
  assert.deepEqual(lines.at(-1).status, 'SUCCEEDED');
  assert.equal(lines.at(-1).done, 1);
  const refused = await kairos('executions', 'retry', '--job', sleeper.id, '--status', 'SUCCEEDED');
  assert.equal(refused.code, 6, 'no retryable status: bad input');
  await ok('executions', 'cancel', '--job', sleeper.id, '--wait');
  await ok('jobs', 'delete', sleeper.id);
});

test('executions ls: history first by default, --upcoming soonest first, --all everything', async () => {
  await ok('login', '--url', url, '--token', token);
  const job = await json('jobs', 'create', '--name', 'cli-every-2s', '--every', '2', '--handler', 'noop');
  try {
    await until(async () => (await json('executions', 'ls', '--job', job.id)).some((e) => e.status === 'SUCCEEDED'), 20_000);
    const upcoming = new Set(['SCHEDULED', 'QUEUED']);
    const newestFirst = (list) => list.map((e) => Date.parse(e.scheduledFor)).every((t, i, all) => i === 0 || all[i - 1] >= t);

    const history = await json('executions', 'ls', '--job', job.id);
    assert.ok(history.length >= 1 && history.every((e) => !upcoming.has(e.status)), history.map((e) => e.status).join());
    assert.ok(newestFirst(history));

    const soonest = await json('executions', 'ls', '--job', job.id, '--upcoming', '--limit', '3');
    assert.ok(soonest.length >= 2 && soonest.every((e) => upcoming.has(e.status)), soonest.map((e) => e.status).join());
    assert.ok(newestFirst([...soonest].reverse()), 'soonest first');

    // Everything, newest first: the occurrences materialised ahead of now come before any run.
    const all = await json('executions', 'ls', '--job', job.id, '--all', '--limit', '3');
    assert.ok(upcoming.has(all[0].status), all.map((e) => e.status).join());
    assert.ok(newestFirst(all));

    assert.deepEqual(await json('executions', 'ls', '--job', job.id, '--upcoming', '--status', 'SUCCEEDED'), []);
    assert.equal((await kairos('executions', 'ls', '--upcoming', '--all')).code, 2);
    assert.match(await ok('executions', 'ls', '--help'), /--upcoming[\s\S]*soonest first[\s\S]*--all/);
  } finally {
    await ok('jobs', 'delete', job.id);
  }
});

test('preview shows occurrences in UTC and local time; a bad cron is exit 6 (bad input)', async () => {
  await ok('login', '--url', url, '--token', token);
  const out = await ok('preview', '0 9 * * 1-5', '--tz', 'Europe/Paris', '--count', '3');
  const lines = out.trim().split('\n');
  assert.match(lines[0], /^AT \(UTC\)\s+LOCAL$/);
  assert.equal(lines.length, 4);
  for (const line of lines.slice(1)) assert.match(line, /^\S+Z\s+\S+T09:00:00(\.000)?\+0[12]:00$/);
  const bad = await kairos('preview', 'not a cron');
  assert.equal(bad.code, 6);
  assert.match(bad.stderr, /BAD_USER_INPUT/);
});

test('jobs backfill: --dry-run lists the occurrences in UTC and local time; without it they are created once; too many is exit 6', async () => {
  await ok('login', '--url', url, '--token', token);
  const job = await json('jobs', 'create', '--name', 'cli-backfill', '--cron', '30 2 * * *', '--tz', 'Europe/Berlin', '--handler', 'noop');
  try {
    const range = ['--from', '2026-03-27T00:00:00+01:00', '--to', '2026-03-31T00:00:00+02:00'];
    const dry = await ok('jobs', 'backfill', job.id, ...range, '--dry-run');
    const lines = dry.trim().split('\n');
    assert.match(lines[0], /^AT \(UTC\)\s+LOCAL$/);
    assert.deepEqual(
      lines.slice(1, 5).map((l) => l.split(/\s+/)[1]),
      ['2026-03-27T02:30:00.000+01:00', '2026-03-28T02:30:00.000+01:00', '2026-03-29T03:00:00.000+02:00', '2026-03-30T02:30:00.000+02:00'],
    );
    assert.match(lines[5], /^dry run: 4 occurrences$/);
    assert.deepEqual(await json('executions', 'ls', '--job', job.id, '--all'), []);
    assert.equal((await json('jobs', 'backfill', job.id, ...range)).created, 4);
    assert.match(await ok('jobs', 'backfill', job.id, ...range), /created 0, existing 4/);
    const tooMany = await kairos('jobs', 'backfill', job.id, '--from', '2000-01-01T00:00:00Z', '--to', '2026-03-01T00:00:00Z');
    assert.equal(tooMany.code, 6);
    assert.match(tooMany.stderr, /BACKFILL_MAX_OCCURRENCES/);
  } finally {
    await ok('jobs', 'delete', job.id);
  }
});
