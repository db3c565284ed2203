import WebSocket from 'ws';

/**
 * Tenant A's WebSocket reads in `npm run bench:neighbours` (run by noisyTenant.ts): sockets of one
 * credential, each carrying as many `executions(first: 100)` queries as the per-socket operation cap
 * admits, each re-sent as soon as it is answered, paging through A's history, until `untilMs`. Sent
 * over graphql-ws, such queries once skipped the tenant's request gate (200 in flight on 4 sockets
 * made another tenant's trivial request wait minutes); the bench keeps them in A's load to show
 * they now wait their turn like A's HTTP requests.
 */
export interface WsReadsOptions {
  url: string;
  /** One credential of tenant A: the reads' sockets count against its per-credential cap too. */
  token: string;
  sockets: number;
  /** Queries in flight on each socket. */
  perSocket: number;
  untilMs: number;
}

export interface WsReadsReport {
  socketsOpen: number;
  socketsRefused: { code: number; reason: string }[];
  /** Queries answered with their page. */
  answered: number;
  /** Refused by the tenant's request gate (past its turns and queue): RATE_LIMITED, retried after its retryAfterSeconds. */
  rateLimited: number;
  /** Refused by the tenant's operation caps (held by its subscriptions meanwhile): QUOTA_EXCEEDED, retried after 1 s. */
  overCaps: number;
  /** Any other error, the first few; retried after 1 s. */
  errors: string[];
  errorCount: number;
  /** From sending a query to its answer (its wait for a turn included), answered ones only. */
  answerMs: { p50: number; p99: number; max: number };
}

/** Every field of a page of A's executions, attempts included (a cost of about 9 000 of the 20 000 allowed). */
const PAGE = `query AWsReads($after: String) { executions(first: 100, after: $after) {
  edges { node { id jobId status trigger scheduledFor queuedAt startedAt finishedAt durationMs startLagMs attempt maxAttempts
    nextAttemptAt attempts { number startedAt finishedAt outcome error httpStatus workerId } error reason result createdAt updatedAt } }
  pageInfo { hasNextPage endCursor } } }`;
/** What an operation may be refused with but not told when to retry (the operation caps): try again after this. */
const RETRY_MS = 1000;

interface OperationError {
  message: string;
  extensions?: { code?: string; retryAfterSeconds?: number };
}
/** An operation's end: its `next` payload, its `error` message's errors, or the socket closing first. */
type Outcome = { data?: unknown; errors?: OperationError[] } | { closed: true };

/** One graphql-ws socket with operations matched to their answers by id. */
class ReadSocket {
  private readonly pending = new Map<string, { resolve: (o: Outcome) => void; payload: { data?: unknown; errors?: OperationError[] } }>();
  private nextId = 0;
  closed = false;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (raw) => {
      const message = JSON.parse((raw as Buffer).toString()) as { id?: string; type: string; payload?: unknown };
      const operation = message.id === undefined ? undefined : this.pending.get(message.id);
      if (message.type === 'ping') socket.send(JSON.stringify({ type: 'pong' }));
      else if (!operation) return;
      else if (message.type === 'next') operation.payload = message.payload as typeof operation.payload;
      else if (message.type === 'complete' || message.type === 'error') {
        this.pending.delete(message.id!);
        operation.resolve(message.type === 'error' ? { errors: message.payload as OperationError[] } : operation.payload);
      }
    });
    socket.on('close', () => {
      this.closed = true;
      for (const operation of this.pending.values()) operation.resolve({ closed: true });
      this.pending.clear();
    });
  }

  /** Resolves with the socket once acknowledged, or with the close code and reason it was refused with. */
  static open(url: string, token: string): Promise<ReadSocket | { code: number; reason: string }> {
    const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    return new Promise((resolve) => {
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
      const acked = (raw: WebSocket.RawData) => {
        if ((JSON.parse((raw as Buffer).toString()) as { type: string }).type !== 'connection_ack') return;
        socket.off('message', acked);
        resolve(new ReadSocket(socket));
      };
      socket.on('message', acked);
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      socket.on('error', (error) => resolve({ code: 0, reason: error.message }));
    });
  }

  request(query: string, variables: Record<string, unknown>): Promise<Outcome> {
    if (this.closed) return Promise.resolve({ closed: true });
    const id = String(this.nextId++);
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, payload: {} });
      this.socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } }));
    });
  }

  close(): void {
    this.socket.close();
  }
}

const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export class WsReadsLoad {
  private readonly sockets: ReadSocket[] = [];
  private readonly answerMs: number[] = [];
  private readonly result: Omit<WsReadsReport, 'answerMs'> = {
    socketsOpen: 0,
    socketsRefused: [],
    answered: 0,
    rateLimited: 0,
    overCaps: 0,
    errors: [],
    errorCount: 0,
  };

  constructor(private readonly options: WsReadsOptions) {}

  /** Opens the sockets (before the other parts open theirs, so that these get their slots). */
  async open(): Promise<void> {
    const { url, token, sockets } = this.options;
    for (const opened of await Promise.all(Array.from({ length: sockets }, () => ReadSocket.open(url, token)))) {
      if (opened instanceof ReadSocket) this.sockets.push(opened);
      else this.result.socketsRefused.push(opened);
    }
    this.result.socketsOpen = this.sockets.length;
  }

  get socketsOpen(): number {
    return this.sockets.length;
  }

  /** Keeps `perSocket` queries in flight on each open socket until `untilMs` (or until its socket closes). */
  async run(): Promise<void> {
    await Promise.all(this.sockets.flatMap((socket) => Array.from({ length: this.options.perSocket }, () => this.reader(socket))));
  }

  private async reader(socket: ReadSocket): Promise<void> {
    const { untilMs } = this.options;
    let after: string | null = null;
    while (Date.now() < untilMs && !socket.closed) {
      const at = performance.now();
      const outcome = await socket.request(PAGE, { after });
      if ('closed' in outcome) return;
      const error = outcome.errors?.[0];
      if (!error) {
        this.answerMs.push(performance.now() - at);
        this.result.answered++;
        const page = (outcome.data as { executions: { pageInfo: { hasNextPage: boolean; endCursor: string | null } } }).executions.pageInfo;
        // Through A's pages, then from the newest again.
        after = page.hasNextPage ? page.endCursor : null;
        continue;
      }
      const code = error.extensions?.code;
      if (code === 'RATE_LIMITED') this.result.rateLimited++;
      else if (code === 'QUOTA_EXCEEDED') this.result.overCaps++;
      else if (this.result.errorCount++ < 5) this.result.errors.push(`${code ?? 'no code'}: ${error.message.slice(0, 200)}`);
      const waitMs = code === 'RATE_LIMITED' ? (error.extensions?.retryAfterSeconds ?? 1) * 1000 : RETRY_MS;
      await sleepMs(Math.min(waitMs, untilMs - Date.now()));
    }
  }

  close(): void {
    for (const socket of this.sockets) socket.close();
  }

  report(): WsReadsReport {
    const sorted = [...this.answerMs].sort((a, b) => a - b);
    const pct = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN);
    return { ...this.result, answerMs: { p50: pct(50), p99: pct(99), max: Math.round(sorted[sorted.length - 1] ?? NaN) } };
  }
}
