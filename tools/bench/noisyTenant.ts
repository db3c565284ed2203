import WebSocket from 'ws';
import { MAX_COST, SCHEDULE_SEARCH_COST } from '#kairos/api/queryLimits.js';
import { MAX_PREVIEW } from '#kairos/domain/schedule/previewSchedule.js';
import { WsReadsLoad, type WsReadsReport } from './wsReadsLoad.js';

/**
 * Tenant A of `npm run bench:neighbours`, run as a child process of it (forked, so its own event
 * loop and CPU are not the measuring process's): everything tenant A's default quotas allow, at
 * once, until `untilMs`. It receives its orders over IPC and answers with what it got done.
 */
export interface NoisyOrders {
  url: string;
  /**
   * Tokens of tenant A, one per credential (JWT subject): the socket caps are per credential. The
   * first five hold the subscriptions' sockets, the sixth tries one past the tenant's cap, the
   * seventh holds the WebSocket reads' sockets.
   */
  tokens: string[];
  /** A's caps on sockets (Kairos' defaults). */
  caps: { maxSockets: number; maxSocketsPerCredential: number };
  untilMs: number;
  /** Interval jobs (every second) to create. */
  intervalJobs: number;
  /** Preview requests in flight at once (0: none). */
  previewLoops: number;
  /** Open the sockets and subscriptions (to see what each part of the load costs, the bench can leave parts out). */
  sockets: boolean;
  /** Create the jobs and trigger the sleeps. */
  writes: boolean;
  /** Queries kept in flight over graphql-ws (wsReadsLoad.ts): on this many sockets, this many on each; null: none. */
  wsReads: { sockets: number; perSocket: number } | null;
}

export interface NoisyReport {
  sleeperTriggers: number;
  triggerRefusals: number;
  intervalJobsCreated: number;
  createRefusals: string[];
  socketsOpen: number;
  socketsRefused: { code: number; reason: string }[];
  /** Subscriptions held at the end (or waiting for their turn): those sent, less those refused and not sent again. */
  subscriptionsOpen: number;
  /** Refusals not retried (the first 20). */
  subscriptionRefusals: string[];
  subscriptionRefusalCount: number;
  /** Subscribes refused a turn in the tenant's request gate (RATE_LIMITED) and sent again after their retryAfterSeconds. */
  subscriptionsRateLimited: number;
  eventsReceived: number;
  previews: number;
  /** Previews refused by the tenant's schedule-search budget (RATE_LIMITED). */
  previewRefusals: number;
  previewErrors: string[];
  previewMs: { p50: number; p99: number; max: number };
  wsReads: WsReadsReport | null;
}

const PREVIEW_FIELDS = 'at local';
/** The rarest cron the parser admits (a leap day: up to 8 years between occurrences). */
const RAREST_CRON = '0 0 29 2 *';
const ZONES = Intl.supportedValuesOf('timeZone');

/** Each previewSchedule item's cost: its two fields (PREVIEW_FIELDS) and one search. */
const ITEM_COST = 2 + SCHEDULE_SEARCH_COST;

/**
 * The costliest preview under the cost limit (queryLimits.ts): as many previews of up to 100
 * occurrences as fit (each alias costs 1 and each occurrence ITEM_COST), each in a zone and from a
 * year picked at random so the zone-offset cache rarely helps.
 */
export function worstPreview(): { query: string; variables: Record<string, unknown> } {
  const counts: number[] = [];
  for (let left = MAX_COST; left > ITEM_COST;) {
    const count = Math.min(MAX_PREVIEW, Math.floor((left - 1) / ITEM_COST));
    counts.push(count);
    left -= 1 + count * ITEM_COST;
  }
  const schedules = counts.map(() => ({
    cron: RAREST_CRON,
    timezone: ZONES[Math.floor(Math.random() * ZONES.length)],
    startAt: new Date(Date.UTC(2030 + Math.floor(Math.random() * 500), 0, 1)).toISOString(),
  }));
  const args = counts.map((_, i) => `$s${i}: ScheduleInput!`).join(', ');
  const fields = counts.map((count, i) => `p${i}: previewSchedule(count: ${count}, schedule: $s${i}) { ${PREVIEW_FIELDS} }`).join(' ');
  return { query: `query APreview(${args}) { ${fields} }`, variables: Object.fromEntries(schedules.map((s, i) => [`s${i}`, s])) };
}

interface Answer {
  data?: Record<string, unknown>;
  errors?: { message: string; extensions?: { code?: string; retryAfterSeconds?: number } }[];
}

/** One request; a failure to answer (timeout, refused connection) comes back as an error like any other. */
async function gql(url: string, token: string, query: string, variables: Record<string, unknown> = {}): Promise<Answer> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      signal: AbortSignal.timeout(30_000),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as Answer;
  } catch (error) {
    return { errors: [{ message: (error as Error).message, extensions: { code: 'NO_ANSWER' } }] };
  }
}

const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const CREATE = 'mutation ACreate($i: CreateJobInput!) { createJob(input: $i) { job { id } } }';
const SUBSCRIBE = 'subscription { executionUpdated { status execution { id } } }';

async function run(orders: NoisyOrders): Promise<NoisyReport> {
  const [token] = orders.tokens;
  const report: NoisyReport = {
    sleeperTriggers: 0,
    triggerRefusals: 0,
    intervalJobsCreated: 0,
    createRefusals: [],
    socketsOpen: 0,
    socketsRefused: [],
    subscriptionsOpen: 0,
    subscriptionRefusals: [],
    subscriptionRefusalCount: 0,
    subscriptionsRateLimited: 0,
    eventsReceived: 0,
    previews: 0,
    previewRefusals: 0,
    previewErrors: [],
    previewMs: { p50: 0, p99: 0, max: 0 },
    wsReads: null,
  };
  const sockets: WebSocket[] = [];
  let subscriptionsSent = 0;
  let subscriptionsGivenUp = 0;
  /** Refused a turn and not sent again yet. */
  let subscriptionsWaiting = 0;

  /** (5) Queries over graphql-ws, their sockets opened first so that the subscriptions' sockets do not take their slots. */
  const reads = orders.wsReads && new WsReadsLoad({ url: orders.url, token: orders.tokens[6], untilMs: orders.untilMs, ...orders.wsReads });
  const readsOpened = reads ? reads.open() : Promise.resolve();
  const readsDone = readsOpened.then(() => reads?.run());

  /** (3) Sockets up to both caps (per credential, per tenant), two subscriptions each up to the tenant's cap, then one more of each to see the refusal. */
  async function openSocket(credentialToken: string, subscriptions: number): Promise<void> {
    const socket = new WebSocket(orders.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    sockets.push(socket);
    let acked = false;
    const subscribe = (id: string) => socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: SUBSCRIBE } }));
    await new Promise<void>((resolve) => {
      socket.on('open', () =>
        socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${credentialToken}` } })),
      );
      socket.on('message', (raw) => {
        const message = JSON.parse((raw as Buffer).toString()) as { id?: string; type: string; payload?: unknown };
        if (message.type === 'connection_ack') {
          acked = true;
          report.socketsOpen++;
          subscriptionsSent += subscriptions;
          for (let i = 0; i < subscriptions; i++) subscribe(String(i));
          resolve();
        } else if (message.type === 'next') report.eventsReceived++;
        else if (message.type === 'error') {
          // Refused before it ran: its turn in the tenant's gate (which A's other operations fill) is retried as the HTTP parts do.
          const error = (message.payload as Answer['errors'])?.[0];
          if (error?.extensions?.code === 'RATE_LIMITED' && message.id !== 'extra') {
            report.subscriptionsRateLimited++;
            subscriptionsWaiting++;
            const retryMs = (error.extensions.retryAfterSeconds ?? 1) * 1000;
            if (Date.now() + retryMs < orders.untilMs)
              setTimeout(() => {
                subscriptionsWaiting--;
                if (socket.readyState === WebSocket.OPEN) subscribe(message.id!);
              }, retryMs);
            return;
          }
          if (report.subscriptionRefusalCount++ < 20) report.subscriptionRefusals.push(JSON.stringify(message.payload).slice(0, 200));
          if (message.id !== 'extra') subscriptionsGivenUp++;
        } else if (message.type === 'ping') socket.send(JSON.stringify({ type: 'pong' }));
      });
      socket.on('close', (code, reason) => {
        if (!acked) report.socketsRefused.push({ code, reason: reason.toString() });
        resolve();
      });
      socket.on('error', () => resolve());
    });
  }
  const live = (async () => {
    if (!orders.sockets) return;
    await readsOpened;
    // 5 credentials × 20 sockets = the tenant's 100 (less the reads' 4); 2 subscriptions on each = its 200
    // operations at once, which the reads' queries share (whoever comes first gets a slot).
    let left = orders.caps.maxSockets - (reads?.socketsOpen ?? 0);
    for (const t of orders.tokens.slice(0, 5)) {
      const count = Math.min(orders.caps.maxSocketsPerCredential, left);
      left -= count;
      await Promise.all(Array.from({ length: count }, () => openSocket(t, 2)));
    }
    // Past the caps: one more socket of a full credential, one of a new credential, one more subscription.
    await openSocket(orders.tokens[0], 0);
    await openSocket(orders.tokens[5], 0);
    sockets
      .find((s) => s.readyState === WebSocket.OPEN)
      ?.send(JSON.stringify({ id: 'extra', type: 'subscribe', payload: { query: SUBSCRIBE } }));
  })();

  /** (4) The costliest preview, back to back. */
  const previewMs: number[] = [];
  const previews = Array.from({ length: orders.previewLoops }, async () => {
    while (Date.now() < orders.untilMs) {
      const { query, variables } = worstPreview();
      const at = performance.now();
      const answer = await gql(orders.url, token, query, variables);
      previewMs.push(performance.now() - at);
      report.previews++;
      // Refused by the tenant's search budget: no search ran, so the next one goes at once (as a hostile client would).
      if (answer.errors?.[0].extensions?.code === 'RATE_LIMITED') report.previewRefusals++;
      else if (answer.errors && report.previewErrors.length < 5) report.previewErrors.push(answer.errors[0].message.slice(0, 200));
    }
  });

  /** (1) the long sleep triggered as often as the write rate lets it and (2) the interval jobs, at once. */
  const writes = (async () => {
    if (!orders.writes) return;
    const sleeper = await gql(orders.url, token, CREATE, {
      i: {
        name: 'sleeper',
        paused: true,
        schedule: { intervalSeconds: 3600 },
        target: { handler: 'sleep' },
        payload: { ms: 20_000 },
        timeoutSeconds: 60,
      },
    });
    const sleeperId = (sleeper.data?.createJob as { job: { id: string } } | undefined)?.job.id;
    if (!sleeperId) throw new Error(`could not create the sleeper: ${JSON.stringify(sleeper.errors)}`);
    // At once: the interval jobs, and the triggers, which share the write budget with the creates.
    await Promise.all([createIntervalJobs(), triggerSleeps(sleeperId)]);
  })();

  /** Creates one at a time per slot of 10 (a tenant's creates are serialised anyway), retrying what the rate refuses. */
  async function createIntervalJobs(): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < orders.intervalJobs && Date.now() < orders.untilMs) {
          const n = next++;
          for (;;) {
            const answer = await gql(orders.url, token, CREATE, {
              i: { name: `every-second-${n}`, schedule: { intervalSeconds: 1 }, target: { handler: 'noop' } },
            });
            const code = answer.errors?.[0].extensions?.code;
            if (!answer.errors) report.intervalJobsCreated++;
            else if (code === 'RATE_LIMITED' && Date.now() < orders.untilMs) {
              await sleepMs(1000);
              continue;
            } else report.createRefusals.push(code ?? answer.errors[0].message);
            break;
          }
        }
      }),
    );
  }

  /** 30 aliased triggers a request (the alias limit); past the rate, what one second refills (10 at 600 a minute), after Retry-After. */
  async function triggerSleeps(sleeperId: string): Promise<void> {
    const mutation = (size: number) =>
      `mutation ATrigger($id: ID!) { ${Array.from({ length: size }, (_, i) => `t${i}: triggerJob(id: $id) { execution { id } }`).join(' ')} }`;
    let size = 30;
    while (Date.now() < orders.untilMs) {
      const answer = await gql(orders.url, token, mutation(size), { id: sleeperId });
      const refused = answer.errors?.find((e) => e.extensions?.code === 'RATE_LIMITED');
      if (refused) {
        report.triggerRefusals++;
        size = 10;
        await sleepMs(Math.min((refused.extensions?.retryAfterSeconds ?? 1) * 1000, orders.untilMs - Date.now()));
        continue;
      }
      report.sleeperTriggers += Object.values(answer.data ?? {}).filter(Boolean).length;
    }
  }

  // Bounded: what has not answered a few seconds past the end is left unanswered.
  await Promise.race([
    Promise.all([live, writes, readsDone, ...previews]).then(() => sleepMs(orders.untilMs - Date.now())),
    sleepMs(orders.untilMs - Date.now() + 3000),
  ]);
  report.subscriptionsOpen = subscriptionsSent - subscriptionsGivenUp - subscriptionsWaiting;
  for (const socket of sockets) socket.close();
  reads?.close();
  report.wsReads = reads ? reads.report() : null;
  const sorted = previewMs.sort((a, b) => a - b);
  const pct = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN);
  report.previewMs = { p50: pct(50), p99: pct(99), max: Math.round(sorted[sorted.length - 1] ?? NaN) };
  return report;
}

process.once('message', (orders: NoisyOrders) => {
  run(orders).then(
    (report) => process.send!(report, () => process.exit(0)),
    (error: Error) => process.send!({ error: error.stack ?? String(error) }, () => process.exit(1)),
  );
});
