// The dashboard in a real headless Chromium (Debian's package, driven by playwright-core) against a
// real Kairos process (all roles, its own database and Redis prefix, a free port). Run by
// scripts/test-ui.sh after `npm run build`. Screenshots land in .data/ui/ on every run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';
import { spawnKairos } from '../../dist/tools/servers/kairosProcess.js';
import { dropRedisPrefix } from '../../dist/tools/servers/dropRedisPrefix.js';
import { signDevToken } from '../../dist/auth/verifyToken.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(root, '.data/ui');
const MONGO_URL = process.env.MONGO_URL || 'mongodb://127.0.0.1:27017/kairos';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const SECRET = 'kairos-ui-test-secret-not-for-production';
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const name = `ui_${process.pid}_${Date.now().toString(36)}`;
const TENANT = 'ui-test';
const WAIT = 20_000;

const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

let kairos;
let base;
let browser;
let receiver;
let receiverUrl;
let frequentId;
const tokens = {};
/** Every console error, page error and request to another host, from every page; must stay empty. */
const problems = [];

/** A GraphQL call over HTTP as `role`; throws on errors. */
async function api(role, query, variables = {}) {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[role]}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json();
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** A new tab of its own (own sessionStorage) at `viewport`, watched for problems. */
async function openPage(viewport = desktop) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const allowed = new URL(base).host;
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.host === allowed) return route.continue();
    problems.push(`request to another host: ${url.href}`);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (message) => message.type() === 'error' && problems.push(`console error: ${message.text()}`));
  page.on('response', async (response) => {
    if (response.status() < 400) return;
    const body = await response.text().catch(() => '');
    problems.push(`HTTP ${response.status()} for ${response.request().method()} ${response.url()}: ${response.request().postData()?.slice(0, 300)} -> ${body.slice(0, 300)}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('websocket', (ws) => new URL(ws.url()).host !== allowed && problems.push(`websocket to another host: ${ws.url()}`));
  page.setDefaultTimeout(WAIT);
  return page;
}

async function signIn(page, token) {
  await page.goto(`${base}/ui/`);
  await page.fill('#token', token);
  await page.click('button[type=submit]');
}

/** Polls `check` (every 250 ms) until it returns a truthy value, which it returns; fails after `timeoutMs`. */
async function eventually(check, what, timeoutMs = 40_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The rows of the executions table, as shown: id, status, scheduledFor, and whether all of the row is on screen. */
function shownRows(page) {
  return page.locator('[data-testid=executions-table] tbody tr[data-execution-id]').evaluateAll((rows) =>
    rows.map((tr) => ({
      id: tr.dataset.executionId,
      status: tr.querySelector('[data-status]').dataset.status,
      scheduledFor: Date.parse(tr.dataset.scheduledFor),
      onScreen: tr.getBoundingClientRect().bottom <= innerHeight,
    })),
  );
}

/** Waits until the every-2-s job has about 20 s of runs (most of it spent by the tests before). */
async function frequentJobHasRun() {
  await eventually(async () => {
    const data = await api('viewer', 'query($f: ExecutionFilter) { executions(first: 10, filter: $f) { edges { node { id } } } }', {
      f: { jobId: frequentId, statuses: ['SUCCEEDED'] },
    });
    return data.executions.edges.length >= 10;
  }, 'ten finished runs of the every-2-s job');
}

const HISTORY = ['RUNNING', 'RETRYING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'];

async function shoot(page, file) {
  await page.screenshot({ path: path.join(shots, file), fullPage: false });
}

before(async () => {
  await mkdir(shots, { recursive: true });
  // A webhook receiver that always answers 500, for an execution that fails.
  receiver = http.createServer((req, res) => {
    req.resume();
    res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver is down');
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;
  const mongoUrl = MONGO_URL.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
  // LOOK_AHEAD_MS: a minute (two at most) of a frequent job's occurrences exist before they run, always more
  // than a page of 20 for the every-2-s job below, as a user reported them ("in 44 s" ... "in 6 s").
  kairos = await spawnKairos(
    {
      MONGO_URL: mongoUrl,
      REDIS_URL,
      REDIS_PREFIX: name,
      JWT_SECRET: SECRET,
      PORT: '0',
      ALLOW_PRIVATE_TARGETS: 'true',
      KAIROS_MODE: 'development',
      LOOK_AHEAD_MS: '60000',
    },
    { startTimeoutMs: 30_000 },
  );
  base = kairos.url.replace(/\/graphql$/, '');
  for (const role of ['admin', 'member', 'viewer']) tokens[role] = signDevToken(SECRET, { tenantId: TENANT, role, expiresInSeconds: 3600 });
  // Runs every 2 s from here on, so it has a history by the time its test comes (without waiting for it alone).
  const frequent = await api('member', 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }', {
    i: { name: 'every-two-seconds', schedule: { intervalSeconds: 2 }, target: { handler: 'noop' } },
  });
  frequentId = frequent.createJob.job.id;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
});

after(async () => {
  await browser?.close();
  kairos?.child.kill('SIGTERM');
  if (kairos) await new Promise((resolve) => (kairos.child.exitCode !== null ? resolve() : kairos.child.once('exit', resolve)));
  await new Promise((resolve) => receiver?.close(resolve));
  const mongo = new MongoClient(MONGO_URL);
  const redis = new Redis(REDIS_URL);
  try {
    await mongo.db(name).dropDatabase();
    await dropRedisPrefix(redis, name);
  } finally {
    await mongo.close();
    await redis.quit();
  }
});

describe('dashboard', { concurrency: false }, () => {
  test('serves hashed assets with long cache headers and a CSP without unsafe-inline', async () => {
    const page = await fetch(`${base}/ui/`);
    assert.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy');
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const html = await page.text();
    const asset = /src="(\/ui\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    assert.ok(asset, 'index.html names a hashed script');
    const script = await fetch(`${base}${asset}`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('cache-control'), /max-age=31536000, immutable/);
    assert.equal((await fetch(`${base}/ui/assets/..%2F..%2Fpackage.json`)).status, 404);
  });

  test('a bad token shows a clear message', async () => {
    const page = await openPage();
    await signIn(page, 'eyJhbGciOiJIUzI1NiJ9.not-a-real-token.sig');
    const message = page.getByTestId('signin-error');
    await message.waitFor();
    assert.match(await message.innerText(), /refused this token/);
    await page.context().close();
  });

  test('signs in, shows tenant and role, and a job created through the API appears', async () => {
    const page = await openPage();
    await signIn(page, tokens.member);
    const who = page.getByTestId('who');
    await who.waitFor();
    assert.match(await who.innerText(), new RegExp(`${TENANT}[\\s\\S]*member`, 'i'));
    await page.getByTestId('jobs-table').waitFor();
    await api('member', 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }', {
      i: { name: 'nightly-report', schedule: { cron: '30 2 * * *', timezone: 'Europe/Paris' }, target: { handler: 'noop' } },
    });
    // No reload: the list looks again on its own.
    await page.locator('tr[data-job-name="nightly-report"]').waitFor();
    assert.match(await page.locator('tr[data-job-name="nightly-report"]').innerText(), /every day at 02:30[\s\S]*Europe\/Paris/);
    // Signing out forgets the token.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#token').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('kairos.token')), null);
    await page.context().close();
  });

  let jobId;
  test('creates a job through the form (field errors shown), then its triggered execution turns RUNNING then SUCCEEDED live', async () => {
    const page = await openPage();
    await signIn(page, tokens.member);
    await page.getByRole('link', { name: '+ New job' }).click();
    await page.fill('#name', 'sleepy');
    await page.fill('#cron', 'every tuesday');
    // The preview follows the typing: an invalid cron shows the API's reason.
    await page.locator('[data-testid=schedule-preview] .field-error').waitFor();
    await page.click('button[type=submit]');
    const cronError = page.locator('[data-field=cron] .field-error');
    await cronError.waitFor();
    assert.ok((await cronError.innerText()).length > 3);
    await page.fill('#cron', '0 */6 * * *');
    await page.locator('[data-testid=schedule-preview] li').first().waitFor();
    await page.fill('#handler', 'sleep');
    await page.fill('#payload', '{"ms": 1500}');
    await page.click('button[type=submit]');
    await page.getByRole('heading', { name: /sleepy/ }).waitFor();
    jobId = decodeURIComponent(page.url().split('#/jobs/')[1]);
    await page.locator('[data-testid=occurrences] li').nth(9).waitFor();
    assert.equal(await page.locator('[data-testid=occurrences] li').count(), 10);

    await page.evaluate(() => (window.__sameDocument = true));
    await page.getByRole('button', { name: /Trigger now/ }).click();
    const row = page.locator('[data-testid=executions-table] tbody tr[data-execution-id]').first();
    await row.locator('[data-status=RUNNING]').waitFor();
    await row.locator('[data-status=SUCCEEDED]').waitFor();
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the page was not reloaded');

    await page.getByRole('button', { name: /Pause/ }).click();
    await page.locator('h1 [data-status=PAUSED]').waitFor();
    assert.equal((await api('member', 'query($id: ID!) { job(id: $id) { status } }', { id: jobId })).job.status, 'PAUSED');
    await page.getByRole('button', { name: /Resume/ }).click();
    await page.locator('h1 [data-status=ACTIVE]').waitFor();
    assert.equal((await api('member', 'query($id: ID!) { job(id: $id) { status nextRunAt } }', { id: jobId })).job.status, 'ACTIVE');
    await page.context().close();
  });

  test("the job page shows the job's change history, newest first, with who and what, and the change an action makes at once", async () => {
    const page = await openPage();
    await signIn(page, tokens.member);
    await page.goto(`${base}/ui/#/jobs/${jobId}`);
    const rows = page.locator('[data-testid=change-history] tbody tr');
    await page.locator('[data-testid=change-history] tr[data-action=RESUME_JOB]').waitFor();
    // The test before created, triggered, paused and resumed it, as the member.
    assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.action)), ['RESUME_JOB', 'PAUSE_JOB', 'TRIGGER_JOB', 'CREATE_JOB']);
    assert.match(await rows.nth(1).innerText(), new RegExp(`dev:${TENANT}[\\s\\S]*status: "ACTIVE" → "PAUSED"`));
    // The trigger links to the execution it made.
    assert.match(await rows.nth(2).locator('[data-testid=change-execution]').getAttribute('href'), /^#\/executions\/.+/);
    // An action of the page shows its change without a reload.
    await page.getByRole('button', { name: /Pause/ }).click();
    await page.locator('[data-testid=change-history] tbody tr:first-child[data-action=PAUSE_JOB]').waitFor();
    await page.getByTestId('change-history').screenshot({ path: path.join(shots, 'job-changes-desktop.png') });
    await page.getByRole('button', { name: /Resume/ }).click();
    await page.locator('[data-testid=change-history] tbody tr:first-child[data-action=RESUME_JOB]').waitFor();
    await page.context().close();
  });

  test("the form takes a field's error back when that field is edited", async () => {
    const page = await openPage();
    await signIn(page, tokens.member);
    await page.getByRole('link', { name: '+ New job' }).click();
    await page.click('button[type=submit]');
    const nameError = page.locator('[data-field=name] .field-error');
    await nameError.waitFor();
    assert.match(await nameError.innerText(), /name must not be empty/);
    await page.locator('#name').pressSequentially('n');
    await nameError.waitFor({ state: 'detached', timeout: 5000 });
    await page.context().close();
  });

  // Every setting a job has, read back whole, to see what an edit in the form kept.
  const FULL_JOB = `id name description status nextRunAt workload timeoutSeconds overlapPolicy misfirePolicy payload
    schedule { kind cron timezone intervalSeconds runAt startAt endAt jitterSeconds }
    target { __typename ... on HttpTarget { url method headers { name value } } ... on HandlerTarget { handler } }
    retryPolicy { maxAttempts initialBackoffSeconds maxBackoffSeconds backoffMultiplier }
    flowControl { key keyFromTarget maxConcurrent maxPerMinute }`;

  /** A job with every setting away from its default (an HTTP target with an Authorization header among them), read back. */
  async function jobWithEverySetting(jobName, { paused }) {
    const day = 86_400_000;
    const created = await api('member', `mutation($i: CreateJobInput!) { createJob(input: $i) { job { ${FULL_JOB} } } }`, {
      i: {
        name: jobName,
        description: 'before',
        schedule: {
          cron: '0 9 * * 1-5',
          timezone: 'Europe/Paris',
          startAt: new Date(Date.now() + day).toISOString(),
          endAt: new Date(Date.now() + 200 * day).toISOString(),
          jitterSeconds: 30,
        },
        target: {
          http: {
            url: receiverUrl,
            method: 'PUT',
            headers: [
              { name: 'Authorization', value: 'Bearer edit-form-secret' },
              { name: 'X-Trace', value: 'abc 123' },
            ],
          },
        },
        payload: { report: 'weekly', big: 12345678901234, nested: { list: [1, 'two', null] } },
        workload: 'CPU_BOUND',
        timeoutSeconds: 95,
        retryPolicy: { maxAttempts: 6, initialBackoffSeconds: 2.5, maxBackoffSeconds: 120, backoffMultiplier: 3 },
        overlapPolicy: 'CANCEL_PREVIOUS',
        misfirePolicy: 'RUN_ALL',
        flowControl: { key: 'partner-api', maxConcurrent: 4, maxPerMinute: 120 },
        paused,
      },
    });
    return created.createJob.job;
  }

  /** The inputs of the updateJob calls `page` sends from now on, in order. */
  function updatesSentBy(page) {
    const sent = [];
    page.on('request', (request) => {
      const body = request.method() === 'POST' && request.url().endsWith('/graphql') ? request.postDataJSON() : null;
      if (body?.query?.includes('updateJob')) sent.push(body.variables.input);
    });
    return sent;
  }

  /** Opens the job's edit form as a MEMBER once it shows the loaded job; returns the page and the inputs of the updateJob calls it sends. */
  async function openEditForm(job) {
    const page = await openPage();
    const sent = updatesSentBy(page);
    await signIn(page, tokens.member);
    await page.getByTestId('who').waitFor();
    await page.goto(`${base}/ui/#/jobs/${job.id}/edit`);
    await page.waitForFunction(() => document.querySelector('#description')?.value === 'before');
    return { page, sent };
  }

  async function save(page, job) {
    await page.click('button[type=submit]');
    // Saved: the form goes to the job's page.
    await page.waitForFunction(() => !location.hash.endsWith('/edit'));
    return (await api('member', `query($id: ID!) { job(id: $id) { ${FULL_JOB} } }`, { id: job.id })).job;
  }

  test("editing a flow control limit sends the job's flow control whole, key and other limit kept", async () => {
    const before = await jobWithEverySetting('edit-flow', { paused: true });
    const { page, sent } = await openEditForm(before);
    assert.equal(await page.inputValue('#flowKey'), 'partner-api');
    await page.fill('#flowMaxConcurrent', '2');
    const after = await save(page, before);
    assert.deepEqual(after, { ...before, flowControl: { ...before.flowControl, maxConcurrent: 2 } });
    assert.deepEqual(sent, [{ id: before.id, flowControl: { key: 'partner-api', maxConcurrent: 2, maxPerMinute: 120 } }]);
    assert.match(await page.getByTestId('flow-control').innerText(), /2 at once, 120 a minute per key partner-api/);
    await page.context().close();
  });

  test('editing only the description in the form keeps every other setting, hidden ones included', async () => {
    const before = await jobWithEverySetting('edit-description', { paused: true });
    const { page, sent } = await openEditForm(before);
    // The settings the form does not show are named, the header values not.
    assert.match(await page.getByTestId('kept-schedule').innerText(), /starts .*, ends .*, jitter up to 30 s/);
    const headers = await page.getByTestId('kept-headers').innerText();
    assert.match(headers, /Authorization, X-Trace/);
    assert.doesNotMatch(headers, /edit-form-secret/);
    await page.fill('#description', 'after');
    const after = await save(page, before);
    assert.deepEqual(after, { ...before, description: 'after' });
    // Only what was changed is sent: a setting changed meanwhile by someone else is not overwritten.
    assert.deepEqual(sent, [{ id: before.id, description: 'after' }]);
    await page.context().close();
  });

  test("changing only the cron in the form keeps the schedule's start, end and jitter and the target's headers", async () => {
    const before = await jobWithEverySetting('edit-cron', { paused: false });
    const { page, sent } = await openEditForm(before);
    await page.fill('#cron', '30 10 * * 1-5');
    const after = await save(page, before);
    const { nextRunAt: _nextBefore, ...kept } = before;
    const { nextRunAt: _nextAfter, ...got } = after;
    assert.deepEqual(got, { ...kept, schedule: { ...before.schedule, cron: '30 10 * * 1-5' } });
    assert.deepEqual(Object.keys(sent[0]).sort(), ['id', 'schedule']);
    await page.context().close();
  });

  test('a cron schedule is shown once: in words beside it, or alone when no words fit', async () => {
    const created = await api('member', 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }', {
      i: { name: 'first-monday', schedule: { cron: '15 9 1-7 * 1' }, target: { handler: 'noop' } },
    });
    const page = await openPage();
    await signIn(page, tokens.viewer);
    await page.getByTestId('who').waitFor();
    for (const [id, name, cron, words] of [
      [jobId, 'sleepy', '0 */6 * * *', /^every 6 hours 0 \*\/6 \* \* \*$/],
      [created.createJob.job.id, 'first-monday', '15 9 1-7 * 1', /^cron 15 9 1-7 \* 1$/],
    ]) {
      await page.goto(`${base}/ui/#/jobs/${id}`);
      await page.getByRole('heading', { name }).waitFor();
      const schedule = page.getByTestId('schedule');
      await schedule.waitFor();
      const text = (await schedule.innerText()).trim();
      assert.equal(text.split(cron).length - 1, 1, `"${cron}" once in "${text}"`);
      assert.match(text, words);
    }
    await page.context().close();
  });

  test("an interval job's next occurrences start at its nextRunAt, on the job's own grid", async () => {
    const created = await api('member', 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id nextRunAt } } }', {
      i: { name: 'hourly-interval', schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' } },
    });
    const { id, nextRunAt } = created.createJob.job;
    const page = await openPage();
    await signIn(page, tokens.viewer);
    await page.getByTestId('who').waitFor();
    await page.goto(`${base}/ui/#/jobs/${id}`);
    const occurrences = page.locator('[data-testid=occurrences] li');
    await occurrences.nth(9).waitFor();
    const at = await occurrences.evaluateAll((items) => items.map((li) => Date.parse(li.dataset.at)));
    assert.equal(new Date(at[0]).toISOString(), new Date(nextRunAt).toISOString(), 'the first occurrence is the job page\'s next run');
    for (let i = 1; i < at.length; i++) assert.equal(at[i] - at[i - 1], 3_600_000);
    await page.context().close();
  });

  let failedId;
  test("shows a FAILED execution's attempts and error", async () => {
    const created = await api('member', 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }', {
      i: { name: 'flaky-webhook', schedule: { intervalSeconds: 3600 }, target: { http: { url: receiverUrl } }, retryPolicy: { maxAttempts: 2, initialBackoffSeconds: 0.2, maxBackoffSeconds: 0.5 } },
    });
    const triggered = await api('member', 'mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }', { id: created.createJob.job.id });
    failedId = triggered.triggerJob.execution.id;
    const page = await openPage();
    await signIn(page, tokens.member);
    await page.getByTestId('who').waitFor();
    await page.goto(`${base}/ui/#/executions/${failedId}`);
    await page.locator('h1 [data-status=FAILED]').waitFor();
    const attempts = page.locator('[data-testid=attempts-table] tbody tr');
    await attempts.nth(1).waitFor();
    assert.equal(await attempts.count(), 2);
    assert.match(await attempts.nth(0).innerText(), /FAILED[\s\S]*500/);
    assert.match(await page.getByTestId('execution-problem').innerText(), /Error:/);
    await page.getByRole('button', { name: /Retry/ }).waitFor();
    await page.context().close();
  });

  test('retries every FAILED execution of a job page filtered to FAILED with one button, showing its progress', async () => {
    const created = await api('member', 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }', {
      i: { name: 'dead-letters', schedule: { runAt: new Date(Date.now() + 3600_000).toISOString() }, target: { http: { url: receiverUrl } }, retryPolicy: { maxAttempts: 1 } },
    });
    const jobId = created.createJob.job.id;
    for (let i = 0; i < 3; i++) await api('member', 'mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }', { id: jobId });
    const failed = `query($id: ID!) { executions(filter: { jobId: $id, statuses: [FAILED] }) { edges { node { id } } } }`;
    await eventually(async () => (await api('member', failed, { id: jobId })).executions.edges.length === 3, 'three FAILED executions');
    const page = await openPage();
    await signIn(page, tokens.member);
    await page.getByTestId('who').waitFor();
    await page.goto(`${base}/ui/#/jobs/${jobId}`);
    await page.locator('[data-testid=executions-table] tbody tr[data-execution-id]').first().waitFor();
    assert.equal(await page.getByTestId('bulk-retry').count(), 0, 'offered only in a view of FAILED executions');
    await page.getByLabel('Execution status').selectOption('FAILED');
    await page.getByRole('button', { name: 'Retry all failed in this view' }).click();
    await page.locator('[data-testid=bulk-retry-progress][data-status=SUCCEEDED]').waitFor({ timeout: WAIT });
    assert.match(await page.getByTestId('bulk-retry-progress').innerText(), /Retried 3\/3/);
    // Each ran again (and failed again: the receiver is down): a second attempt on record.
    const attempts = `query($id: ID!) { executions(filter: { jobId: $id, phase: HISTORY }) { edges { node { attempt status } } } }`;
    await eventually(async () => {
      const rows = (await api('member', attempts, { id: jobId })).executions.edges.map((e) => e.node);
      return rows.length === 3 && rows.every((r) => r.attempt === 2 && r.status === 'FAILED');
    }, 'every execution retried once');
    await page.context().close();
  });

  test('backfills a job from its page: a preview of the occurrences in its zone, then the executions, once', async () => {
    const created = await api('member', 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }', {
      i: { name: 'daily-report', schedule: { cron: '30 2 * * *', timezone: 'Europe/Berlin' }, target: { handler: 'noop' } },
    });
    const jobId = created.createJob.job.id;
    const page = await openPage();
    await signIn(page, tokens.member);
    await page.getByTestId('who').waitFor();
    await page.goto(`${base}/ui/#/jobs/${jobId}`);
    await page.getByLabel('From (UTC day)').fill('2026-03-27');
    await page.getByLabel('To (UTC day, excluded)').fill('2026-03-31');
    await page.getByRole('button', { name: 'Preview' }).click();
    const previewed = page.locator('[data-testid=backfill-preview] li');
    await previewed.nth(3).waitFor();
    // 02:30 in Berlin, but 03:00 on the night the clocks go forward.
    assert.deepEqual(await previewed.evaluateAll((items) => items.map((li) => li.dataset.at)), [
      '2026-03-27T01:30:00.000Z',
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
    assert.equal((await api('member', `query($id: ID!) { executions(filter: { jobId: $id }) { edges { node { id } } } }`, { id: jobId })).executions.edges.length, 0);
    await page.getByRole('button', { name: 'Backfill 4 occurrences' }).click();
    await page.getByTestId('backfill-done').waitFor();
    assert.match(await page.getByTestId('backfill-done').innerText(), /Created 4, 0 had run already/);
    const succeeded = `query($id: ID!) { executions(filter: { jobId: $id, statuses: [SUCCEEDED] }) { edges { node { trigger } } } }`;
    await eventually(async () => (await api('member', succeeded, { id: jobId })).executions.edges.length === 4, 'the four backfilled executions SUCCEEDED');
    await page.reload();
    const rows = page.locator('[data-testid=executions-table] tbody tr[data-execution-id]');
    await rows.nth(3).waitFor({ timeout: WAIT });
    assert.match(await rows.first().innerText(), /backfill/);
    await page.getByLabel('From (UTC day)').fill('2026-03-27');
    await page.getByLabel('To (UTC day, excluded)').fill('2026-03-31');
    await page.getByRole('button', { name: 'Preview' }).click();
    await previewed.nth(3).waitFor();
    await shoot(page, 'job-backfill-desktop.png');
    await page.getByRole('button', { name: 'Backfill 4 occurrences' }).click();
    await page.getByText('Created 0, 4 had run already').waitFor();
    await page.context().close();
  });

  test('a VIEWER is offered no write action', async () => {
    const page = await openPage();
    await signIn(page, tokens.viewer);
    await page.getByTestId('jobs-table').waitFor();
    await page.locator('tr[data-job-name="sleepy"]').waitFor();
    assert.equal(await page.getByRole('link', { name: '+ New job' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Admin' }).count(), 0);
    await page.locator('tr[data-job-name="sleepy"] a').click();
    await page.getByRole('heading', { name: /sleepy/ }).waitFor();
    await page.locator('[data-testid=executions-table] tbody tr[data-execution-id]').first().waitFor();
    assert.equal(await page.getByTestId('job-actions').count(), 0);
    await page.goto(`${base}/ui/#/executions/${failedId}`);
    await page.locator('h1 [data-status=FAILED]').waitFor();
    assert.equal(await page.getByTestId('execution-actions').count(), 0);
    await page.context().close();
  });

  test('an admin creates an API key (secret shown once) that signs in', async () => {
    const page = await openPage();
    await signIn(page, tokens.admin);
    await page.getByRole('link', { name: 'Admin' }).click();
    await page.getByLabel('Key name').fill('dashboard test');
    await page.getByLabel('Key role').selectOption('VIEWER');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('secret').innerText()).trim();
    assert.match(secret, /^kairos_/);
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByTestId('secret').count(), 0);
    await page.context().close();
    const keyPage = await openPage();
    await signIn(keyPage, secret);
    assert.match(await keyPage.getByTestId('who').innerText(), /viewer/i);
    await keyPage.context().close();
  });

  test('an admin adds an alert channel and a rule on the alerts page, and the alert a failure raises is listed with its delivery', async () => {
    const failing = await api('member', 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }', {
      i: { name: 'alerting', schedule: { intervalSeconds: 3600 }, target: { http: { url: receiverUrl } }, retryPolicy: { maxAttempts: 1 } },
    });
    const failingId = failing.createJob.job.id;
    const page = await openPage();
    await signIn(page, tokens.admin);
    await page.getByRole('link', { name: 'Alerts' }).click();
    await page.getByLabel('Channel name').fill('ops');
    // The receiver answers 500: the alert's delivery shows its failed attempts.
    await page.getByLabel('Channel URL').fill(receiverUrl);
    await page.getByRole('button', { name: 'Add channel' }).click();
    await page.locator('td', { hasText: 'ops' }).first().waitFor();
    await page.getByLabel('Rule channel').selectOption({ label: 'ops' });
    await page.getByLabel('Rule kind').selectOption('CONSECUTIVE_FAILURES');
    await page.getByLabel('Rule threshold').fill('1');
    await page.getByLabel('Rule job').fill(failingId);
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.locator('td', { hasText: 'failures in a row' }).waitFor();
    // Processes read a tenant's rules again within ALERT_RULES_CACHE_MS: trigger until the failure alerts.
    await eventually(async () => {
      const data = await api('viewer', 'query($j: ID) { alerts(jobId: $j) { edges { node { state } } } }', { j: failingId });
      if (data.alerts.edges.length > 0) return true;
      await api('member', 'mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }', { id: failingId });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return false;
    }, 'the failure alert');
    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = page.locator('[data-testid=alerts] tbody tr').first();
    await row.locator('[data-status=FAILING]').waitFor();
    assert.match(await row.innerText(), /1 consecutive failed execution[\s\S]*(pending|failed) \(\d+ attempts?/);
    await shoot(page, 'alerts-desktop.png');
    await page.context().close();
  });

  test('GraphiQL is served from Kairos itself in development mode, with the token header pre-wired', async () => {
    const page = await openPage();
    await signIn(page, tokens.member);
    await page.getByTestId('who').waitFor();
    await page.goto(`${base}/graphql`);
    await page.locator('.graphiql-container').waitFor();
    await page.getByText(/Bearer ey/).first().waitFor();
    await page.locator('.graphiql-execute-button').click();
    await page.locator('.result-window', { hasText: TENANT }).waitFor();
    await page.context().close();
  });

  test("a frequent job's page shows its newest runs first, live, and its upcoming ones apart", async () => {
    await frequentJobHasRun();
    const page = await openPage();
    await signIn(page, tokens.viewer);
    await page.getByTestId('who').waitFor();
    await page.goto(`${base}/ui/#/jobs/${frequentId}`);
    await page.evaluate(() => (window.__sameDocument = true));
    await page.locator('[data-testid=executions-table] tbody tr[data-execution-id]').nth(2).waitFor();
    const shown = (await shownRows(page)).filter((r) => r.onScreen);
    assert.ok(shown.filter((r) => r.status === 'SUCCEEDED').length >= 3, `three finished runs on the first screen: ${JSON.stringify(shown)}`);
    assert.deepEqual(
      shown.filter((r) => !HISTORY.includes(r.status)),
      [],
      'only runs that started or finished',
    );
    for (let i = 1; i < shown.length; i++) assert.ok(shown[i - 1].scheduledFor >= shown[i].scheduledFor, 'newest first');
    await shoot(page, 'job-frequent-desktop.png');

    // A new run arrives on top, and finishes, without a reload.
    const newer = await page.waitForFunction((top) => {
      const tr = document.querySelector('[data-testid=executions-table] tbody tr[data-execution-id]');
      return tr && Date.parse(tr.dataset.scheduledFor) > top && tr.dataset.executionId;
    }, shown[0].scheduledFor);
    const newId = await newer.jsonValue();
    await page.locator(`tr[data-execution-id="${newId}"] [data-status=SUCCEEDED]`).waitFor();
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the page was not reloaded');

    // Upcoming: the soonest occurrences not started yet, soonest first.
    await page.getByTestId('execution-phase').getByRole('button', { name: 'Upcoming' }).click();
    await page.locator('[data-testid=executions-table][data-phase=UPCOMING] tbody tr[data-execution-id]').nth(1).waitFor();
    const upcoming = await shownRows(page);
    assert.deepEqual(
      upcoming.filter((r) => r.status !== 'QUEUED' && r.status !== 'SCHEDULED'),
      [],
      'only occurrences not started yet',
    );
    for (let i = 1; i < upcoming.length; i++) assert.ok(upcoming[i - 1].scheduledFor < upcoming[i].scheduledFor, 'soonest first');
    assert.ok(upcoming[0].scheduledFor < Date.now() + 10_000, 'the soonest one is due within a few intervals');
    await page.context().close();
  });

  test("a frequent job's row in the jobs list takes its last outcome and success rate from its runs", async () => {
    // Its first executions (newest first) are all occurrences to come by now; its runs are after them.
    await frequentJobHasRun();
    const page = await openPage();
    await signIn(page, tokens.viewer);
    const row = page.locator('tr[data-job-name="every-two-seconds"]');
    await row.waitFor();
    await row.locator('[data-testid=last-outcome] [data-status=SUCCEEDED]').waitFor({ timeout: 5000 });
    assert.match(await row.getByTestId('success-rate').innerText(), /^100%$/);
    await page.context().close();
  });

  test("the start-lag histogram's labels do not overlap, at desktop and phone sizes", async () => {
    for (const viewport of [desktop, phone]) {
      const page = await openPage(viewport);
      await signIn(page, tokens.viewer);
      const labels = page.locator('[data-testid=lag-histogram] .histogram-label');
      await labels.nth(8).waitFor();
      // The row is lined up with the plot on uPlot's draw: wait until it has been.
      await page.waitForFunction(() => document.querySelector('.histogram-labels')?.style.width);
      const boxes = await labels.evaluateAll((spans) => spans.filter((s) => s.checkVisibility({ visibilityProperty: true })).map((s) => s.getBoundingClientRect().toJSON()));
      assert.ok(boxes.length >= (viewport === desktop ? 9 : 5), `${boxes.length} labels shown at ${viewport.width}px`);
      const card = await page.locator('[data-testid=lag-histogram]').evaluate((e) => e.getBoundingClientRect().toJSON());
      for (let i = 0; i < boxes.length; i++) {
        assert.ok(boxes[i].width > 0 && boxes[i].left >= card.left && boxes[i].right <= card.right, `label ${i} inside the chart: ${JSON.stringify(boxes[i])}`);
        if (i > 0) assert.ok(boxes[i - 1].right <= boxes[i].left, `labels ${i - 1} and ${i} overlap at ${viewport.width}px: ${JSON.stringify([boxes[i - 1], boxes[i]])}`);
      }
      await page.context().close();
    }
  });

  test("the sign-in page's token command stays on one line, at desktop and phone sizes", async () => {
    for (const viewport of [desktop, phone]) {
      const page = await openPage(viewport);
      await page.goto(`${base}/ui/`);
      const command = page.getByTestId('token-command');
      await command.waitFor();
      assert.equal((await command.innerText()).trim(), 'npm run token -- --tenant demo --role viewer');
      const lines = await command.evaluate((element) => {
        const range = document.createRange();
        range.selectNodeContents(element);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      });
      assert.equal(lines, 1, `one line at ${viewport.width}px`);
      await shoot(page, `signin-${viewport === desktop ? 'desktop' : 'phone'}.png`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      assert.ok(overflow <= 1, `the sign-in page is ${overflow}px wider than the screen`);
      await page.context().close();
    }
  });

  test('labels: the jobs list filters by them, the form edits them and the external id, the job page shows both', async () => {
    const create = (i) => api('member', 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }', { i }).then((d) => d.createJob.job.id);
    const schedule = { cron: '0 4 * * *', timezone: 'UTC' };
    const payId = await create({
      name: 'labelled-pay',
      schedule,
      target: { handler: 'noop' },
      labels: [
        { key: 'team', value: 'payments' },
        { key: 'env', value: 'prod' },
      ],
      externalId: 'crm-ui-1',
    });
    const opsId = await create({ name: 'labelled-ops', schedule, target: { handler: 'noop' }, labels: [{ key: 'team', value: 'ops' }] });
    const page = await openPage();
    const sent = updatesSentBy(page);
    await signIn(page, tokens.member);
    const pay = page.locator('tr[data-job-name="labelled-pay"]');
    const ops = page.locator('tr[data-job-name="labelled-ops"]');
    await pay.waitFor();
    assert.deepEqual(await pay.locator('.label-chip').allInnerTexts(), ['env=prod', 'team=payments']);
    await page.fill('input[aria-label=Labels]', 'team=payments');
    await ops.waitFor({ state: 'detached' });
    assert.equal(await pay.count(), 1);
    await shoot(page, 'jobs-labels-desktop.png');

    // The form: the labels as text, an external id another job holds refused beside its field.
    await page.goto(`${base}/ui/#/jobs/${opsId}/edit`);
    await page.waitForFunction(() => document.querySelector('#labels')?.value === 'team=ops');
    await page.fill('#labels', 'team=payments, env=dev');
    await page.fill('#externalId', 'crm-ui-1');
    await page.click('button[type=submit]');
    const conflict = page.locator('[data-field=externalId] .field-error');
    await conflict.waitFor();
    assert.match(await conflict.innerText(), new RegExp(`held by job ${payId}`));
    await page.fill('#externalId', 'crm-ui-2');
    await page.click('button[type=submit]');
    await page.waitForFunction(() => !location.hash.endsWith('/edit'));
    await page.getByTestId('external-id').waitFor();
    assert.equal(await page.getByTestId('external-id').innerText(), 'crm-ui-2');
    assert.deepEqual(await page.locator('.page-head .label-chip').allInnerTexts(), ['env=dev', 'team=payments']);
    assert.deepEqual(sent.at(-1), {
      id: opsId,
      labels: [
        { key: 'team', value: 'payments' },
        { key: 'env', value: 'dev' },
      ],
      externalId: 'crm-ui-2',
    });
    await shoot(page, 'job-labels-desktop.png');

    // Relabelled, it now matches the list's filter too.
    await page.goto(`${base}/ui/#/jobs`);
    await page.fill('input[aria-label=Labels]', 'team=payments');
    await ops.waitFor();
    await pay.waitFor();
    await page.fill('input[aria-label=Labels]', 'team=payments, env=prod');
    await ops.waitFor({ state: 'detached' });
    await page.context().close();
  });

  test('screenshots: jobs list, job page and execution page at desktop and phone sizes', async () => {
    for (const [label, viewport] of [
      ['desktop', desktop],
      ['phone', phone],
    ]) {
      const page = await openPage(viewport);
      await signIn(page, tokens.admin);
      await page.locator('tr[data-job-name="sleepy"]').waitFor();
      await page.getByTestId('timeline').waitFor();
      await shoot(page, `jobs-${label}.png`);
      await page.goto(`${base}/ui/#/jobs/${jobId}`);
      await page.locator('[data-testid=occurrences] li').first().waitFor();
      await page.locator('[data-testid=executions-table] tbody tr[data-execution-id]').first().waitFor();
      await shoot(page, `job-${label}.png`);
      await page.goto(`${base}/ui/#/executions/${failedId}`);
      await page.locator('[data-testid=attempts-table] tbody tr').first().waitFor();
      await shoot(page, `execution-${label}.png`);
      // Nothing wider than the screen: the page is usable without sideways scrolling.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      assert.ok(overflow <= 1, `${label}: the page is ${overflow}px wider than the screen`);
      await page.context().close();
    }
  });

  test('no console error and no request to another host, on any page', () => {
    assert.deepEqual(problems, []);
  });
});
