import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import { createClient, type Client } from 'graphql-ws';
import * as ops from './generated/graphql.js';
import type {
  ChangeFilter,
  CreateJobInput,
  ExecutionFilter,
  ExecutionStatus,
  JobFilter,
  Role,
  ScheduleInput,
  UpdateJobInput,
} from './generated/graphql.js';
import { KairosError } from './errors.js';
import { paginate, paginateBackward, type Connection } from './paginate.js';
import { bearer, Transport, type Credential, type RateLimitRetry, type RequestOptions } from './transport.js';
import { backoffMs, subscriptionIterator, type ReconnectOptions } from './watch.js';

export type Job = ops.JobFieldsFragment;
export type Execution = ops.ExecutionFieldsFragment;
export type ExecutionAttempt = ops.AttemptFieldsFragment;
export type ApiKey = ops.ApiKeyFieldsFragment;
export type Viewer = ops.ViewerQuery['viewer'];
export type ExecutionStats = ops.ExecutionStatsQuery['executionStats'];
export type ScheduledTime = ops.PreviewScheduleQuery['previewSchedule'][number];
export type ExecutionEvent = ops.ExecutionUpdatedSubscription['executionUpdated'];
export type JobConnection = ops.JobsQuery['jobs'];
export type ExecutionConnection = ops.ExecutionsQuery['executions'];
export type BulkOperation = ops.BulkOperationFieldsFragment;
export type BackfillResult = ops.BackfillJobMutation['backfillJob'];
export type Change = ops.ChangeFieldsFragment;
export type ChangeConnection = ops.ChangesQuery['changes'];

export interface KairosClientOptions {
  /** The GraphQL endpoint, e.g. http://127.0.0.1:4000/graphql; subscriptions use the same URL over ws(s). */
  url: string;
  /** A JWT, or a function returning the current one (called per request and per WebSocket connection). */
  token?: Credential;
  /** An API key (`kairos_...`); sent the same way as a token. */
  apiKey?: Credential;
  /** Default: the global fetch (Node 20+, browsers). */
  fetch?: typeof fetch;
  /** A WebSocket class for subscriptions. Default: the global WebSocket, else the `ws` package (Node 20 has no global one). */
  webSocketImpl?: unknown;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /** Retry requests refused with RATE_LIMITED after the wait the server asks for. Off by default. */
  retryRateLimited?: boolean | RateLimitRetry;
  /** Reconnection of subscriptions. */
  reconnect?: ReconnectOptions;
}

/**
 * A document `request` runs: one of `documents`, or one of your own generated the same way, by
 * graphql-codegen's typed-document-node in `documentMode: 'string'` (a String object that carries its
 * result and variables types), as the dashboard's are. An AST document (TypedDocumentNode) does not
 * fit: the text is sent as it is.
 */
export type TypedDocument<TResult, TVariables> = DocumentTypeDecoration<TResult, TVariables> & String;

export interface PageArgs {
  first?: number;
  after?: string | null;
  last?: number;
  before?: string | null;
}

/**
 * A typed Kairos client: one method per operation of the API. Methods resolve to the object the
 * operation is about (a Job, an Execution...) or throw a KairosError. Call close() when done if
 * you used watchExecutions, to close its WebSocket.
 */
export class KairosClient {
  private readonly transport: Transport;
  private ws: Promise<Client> | null = null;

  constructor(private readonly options: KairosClientOptions) {
    if (options.token !== undefined && options.apiKey !== undefined) throw new TypeError('Give token or apiKey, not both');
    const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
    if (!fetchImpl) throw new TypeError('No global fetch here: pass the fetch option');
    const retry = options.retryRateLimited;
    this.transport = new Transport({
      url: options.url,
      credential: options.token ?? options.apiKey,
      fetch: fetchImpl,
      headers: options.headers,
      retryRateLimited: retry === true ? {} : retry || false,
    });
  }

  /** Runs any generated document, or one of your own generated the same way (TypedDocument). */
  request<TResult, TVariables>(document: TypedDocument<TResult, TVariables>, variables: TVariables, options?: RequestOptions): Promise<TResult> {
    return this.transport.request(document, variables, options);
  }

  // ---- queries ----

  async viewer(options?: RequestOptions): Promise<Viewer> {
    return (await this.request(ops.ViewerDocument, {}, options)).viewer;
  }

  /** Null when there is no such job in the caller's tenant. */
  async job(id: string, options?: RequestOptions): Promise<Job | null> {
    return (await this.request(ops.JobDocument, { id }, options)).job;
  }

  /** One page of jobs, newest first. */
  async jobs(args: PageArgs & { filter?: JobFilter } = {}, options?: RequestOptions): Promise<JobConnection> {
    return (await this.request(ops.JobsDocument, args, options)).jobs;
  }

  /** Every job matching `filter`, fetched `pageSize` (default 100) at a time. */
  jobsAll(filter: JobFilter & { pageSize?: number } = {}, options?: RequestOptions): AsyncGenerator<Job, void, undefined> {
    const { pageSize, ...rest } = filter;
    return paginate<Job>((first, after) => this.jobs({ first, after, filter: rest }, options), pageSize);
  }

  async execution(id: string, options?: RequestOptions): Promise<Execution | null> {
    return (await this.request(ops.ExecutionDocument, { id }, options)).execution;
  }

  /**
   * One page of the tenant's change history, newest first: who changed what and when (secrets never
   * shown). `filter.jobId` narrows it to one job's, also after the job was deleted. The changes of API
   * keys and of the webhook secret are listed to ADMINs only.
   */
  async changes(args: PageArgs & { filter?: ChangeFilter } = {}, options?: RequestOptions): Promise<ChangeConnection> {
    return (await this.request(ops.ChangesDocument, args, options)).changes;
  }

  /**
   * One page of executions, newest scheduledFor first, exactly as the API lists them: occurrences not
   * started yet come first unless `filter.phase` is 'HISTORY'. `{ last: n, filter: { phase: 'UPCOMING' } }`
   * is the n soonest upcoming ones (still newest first). executionsAll picks these for you.
   */
  async executions(args: PageArgs & { filter?: ExecutionFilter } = {}, options?: RequestOptions): Promise<ExecutionConnection> {
    return (await this.request(ops.ExecutionsDocument, args, options)).executions;
  }

  /**
   * Every execution matching `filter`, fetched `pageSize` (default 100) at a time. Without `phase`
   * and `statuses` it lists history (phase 'HISTORY': started or finished), newest first; a frequent
   * job's upcoming occurrences would otherwise come before any run. `phase: 'UPCOMING'` lists the
   * ones not started yet, soonest first; `phase: null` lists everything, newest first (upcoming ones
   * first); `statuses` without a phase lists those statuses, newest first.
   */
  executionsAll(filter: ExecutionFilter & { pageSize?: number } = {}, options?: RequestOptions): AsyncGenerator<Execution, void, undefined> {
    const { pageSize, ...rest } = filter;
    const query: ExecutionFilter = rest.phase === undefined && !rest.statuses?.length ? { ...rest, phase: 'HISTORY' } : rest;
    if (query.phase === 'UPCOMING') {
      return paginateBackward<Execution>((last, before) => this.executions({ last, before, filter: query }, options) as Promise<Connection<Execution>>, pageSize);
    }
    return paginate<Execution>((first, after) => this.executions({ first, after, filter: query }, options) as Promise<Connection<Execution>>, pageSize);
  }

  /** Counts by status and start-lag percentiles over executions scheduled in [since, until). */
  async executionStats(args: { since: string | Date; until?: string | Date; jobId?: string }, options?: RequestOptions): Promise<ExecutionStats> {
    const variables = { jobId: args.jobId, since: iso(args.since), until: args.until === undefined ? undefined : iso(args.until) };
    return (await this.request(ops.ExecutionStatsDocument, variables, options)).executionStats;
  }

  /** What an id is (`__typename` Job or Execution), or null. */
  async node(id: string, options?: RequestOptions): Promise<ops.NodeQuery['node']> {
    return (await this.request(ops.NodeDocument, { id }, options)).node;
  }

  /** The next `count` (default 5) occurrences of a schedule, creating nothing. */
  async previewSchedule(schedule: ScheduleInput, count?: number, options?: RequestOptions): Promise<ScheduledTime[]> {
    return (await this.request(ops.PreviewScheduleDocument, { schedule, count }, options)).previewSchedule;
  }

  /** ADMIN only. */
  async apiKeys(options?: RequestOptions): Promise<ApiKey[]> {
    return (await this.request(ops.ApiKeysDocument, {}, options)).apiKeys;
  }

  // ---- mutations ----

  async createJob(input: CreateJobInput, options?: RequestOptions): Promise<Job> {
    return (await this.request(ops.CreateJobDocument, { input }, options)).createJob.job;
  }

  /** Omitted fields keep their value. */
  async updateJob(input: UpdateJobInput, options?: RequestOptions): Promise<Job> {
    return (await this.request(ops.UpdateJobDocument, { input }, options)).updateJob.job;
  }

  async pauseJob(id: string, options?: RequestOptions): Promise<Job> {
    return (await this.request(ops.PauseJobDocument, { id }, options)).pauseJob.job;
  }

  async resumeJob(id: string, options?: RequestOptions): Promise<Job> {
    return (await this.request(ops.ResumeJobDocument, { id }, options)).resumeJob.job;
  }

  /** Resolves to the deleted job's id. */
  async deleteJob(id: string, options?: RequestOptions): Promise<string> {
    return (await this.request(ops.DeleteJobDocument, { id }, options)).deleteJob.deletedJobId;
  }

  /** Runs the job now as a MANUAL execution; `payload` overrides the job's for this run. */
  async triggerJob(id: string, payload?: unknown, options?: RequestOptions): Promise<Execution> {
    return (await this.request(ops.TriggerJobDocument, { id, payload }, options)).triggerJob.execution;
  }

  /**
   * Creates the job's past occurrences in [from, to) as BACKFILL executions, paced; an occurrence that
   * has an execution already is left alone (`existing`), so calling again creates nothing. With
   * `dryRun` it returns the instants only. More than the server's BACKFILL_MAX_OCCURRENCES is
   * BAD_USER_INPUT (`maxOccurrences`); more than the tenant's waiting room QUOTA_EXCEEDED.
   */
  async backfillJob(id: string, from: Date | string, to: Date | string, dryRun?: boolean, options?: RequestOptions): Promise<BackfillResult> {
    const iso = (d: Date | string) => (typeof d === 'string' ? d : d.toISOString());
    return (await this.request(ops.BackfillJobDocument, { id, from: iso(from), to: iso(to), dryRun }, options)).backfillJob;
  }

  async cancelExecution(id: string, options?: RequestOptions): Promise<Execution> {
    return (await this.request(ops.CancelExecutionDocument, { id }, options)).cancelExecution.execution;
  }

  async retryExecution(id: string, options?: RequestOptions): Promise<Execution> {
    return (await this.request(ops.RetryExecutionDocument, { id }, options)).retryExecution.execution;
  }

  /**
   * Retries, in the background, the FAILED (the default) or CANCELLED executions `filter` matches now
   * (at most the server's BULK_MAX_EXECUTIONS, else BAD_USER_INPUT). The same `operationId` again
   * returns the same operation and does nothing twice. Follow it with bulkOperation or watchBulkOperation.
   */
  async retryExecutions(filter: ExecutionFilter, args: { operationId?: string } = {}, options?: RequestOptions): Promise<BulkOperation> {
    return (await this.request(ops.RetryExecutionsDocument, { filter, operationId: args.operationId }, options)).retryExecutions;
  }

  /** Cancels, in the background, the waiting and running executions `filter` matches now; as retryExecutions otherwise. */
  async cancelExecutions(filter: ExecutionFilter, args: { operationId?: string } = {}, options?: RequestOptions): Promise<BulkOperation> {
    return (await this.request(ops.CancelExecutionsDocument, { filter, operationId: args.operationId }, options)).cancelExecutions;
  }

  /** A bulk operation of the tenant; null for another tenant's or a missing one. */
  async bulkOperation(id: string, options?: RequestOptions): Promise<BulkOperation | null> {
    return (await this.request(ops.BulkOperationDocument, { id }, options)).bulkOperation;
  }

  /** ADMIN only. The secret is in the answer once, never again. */
  async createApiKey(args: { name: string; role: Role }, options?: RequestOptions): Promise<{ apiKey: ApiKey; secret: string }> {
    return (await this.request(ops.CreateApiKeyDocument, args, options)).createApiKey;
  }

  async revokeApiKey(id: string, options?: RequestOptions): Promise<ApiKey> {
    return (await this.request(ops.RevokeApiKeyDocument, { id }, options)).revokeApiKey;
  }

  /**
   * ADMIN only. Resolves to the new webhook signing secret (shown once). The replaced secret keeps
   * signing deliveries, beside the new one, for `gracePeriodSeconds` (0 to 604800; the server's
   * default, a day, when not given).
   */
  async rotateWebhookSecret(options?: RequestOptions & { gracePeriodSeconds?: number }): Promise<string> {
    const variables = { gracePeriodSeconds: options?.gracePeriodSeconds };
    return (await this.request(ops.RotateWebhookSecretDocument, variables, options)).rotateWebhookSecret.secret;
  }

  /** ADMIN only. Ends the grace of the secret the last rotation replaced; doing it again changes nothing. */
  async revokePreviousWebhookSecret(options?: RequestOptions): Promise<{ previousSecretExpiresAt: string | null; rotatedAt: string | null }> {
    return (await this.request(ops.RevokePreviousWebhookSecretDocument, {}, options)).revokePreviousWebhookSecret;
  }

  // ---- subscription ----

  /**
   * Status changes of the tenant's executions, optionally of one job and some statuses, as they
   * happen. Reconnects and resubscribes after a dropped connection (events meanwhile are not
   * replayed); ends on `break`/`return()` or `signal`; throws a KairosError when the server refuses
   * (UNAUTHENTICATED for a bad or expired token) or reconnection gives up.
   */
  watchExecutions(filter: { jobId?: string; statuses?: ExecutionStatus[] } = {}, options: { signal?: AbortSignal } = {}): AsyncIterableIterator<ExecutionEvent> {
    return subscriptionIterator<ops.ExecutionUpdatedSubscription, ExecutionEvent>(
      this.socket(),
      { query: String(ops.ExecutionUpdatedDocument), variables: { jobId: filter.jobId, statuses: filter.statuses } },
      (data) => data.executionUpdated,
      options.signal,
    );
  }

  /**
   * A bulk operation as it progresses: its state now, then at each change (at most every 250 ms),
   * ending after its final state (status SUCCEEDED or FAILED). Throws a KairosError (NOT_FOUND for
   * an id that is not the tenant's).
   */
  watchBulkOperation(id: string, options: { signal?: AbortSignal } = {}): AsyncIterableIterator<BulkOperation> {
    return subscriptionIterator<ops.BulkOperationProgressSubscription, BulkOperation>(
      this.socket(),
      { query: String(ops.BulkOperationProgressDocument), variables: { id } },
      (data) => data.bulkOperationProgress,
      options.signal,
    );
  }

  /** Closes the subscriptions' WebSocket (open ones end). HTTP methods keep working. */
  async close(): Promise<void> {
    const ws = this.ws;
    this.ws = null;
    if (ws) await (await ws.catch(() => null))?.dispose();
  }

  private socket(): Promise<Client> {
    this.ws ??= resolveWebSocket(this.options.webSocketImpl).then((webSocketImpl) => {
      const reconnect = this.options.reconnect ?? {};
      return createClient({
        url: this.options.url.replace(/^http/, 'ws'),
        webSocketImpl,
        connectionParams: async () => {
          const authorization = await bearer(this.options.token ?? this.options.apiKey);
          return authorization ? { authorization } : {};
        },
        lazy: true,
        // Keep the socket a moment after the last subscription ends, so watch loops reuse it.
        lazyCloseTimeout: 1000,
        retryAttempts: reconnect.attempts ?? Infinity,
        retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, backoffMs(retries, reconnect))),
        // graphql-ws retries dropped sockets and server restarts (1001, 1006...) on its own and
        // gives up on 4401/4400/4500; a connection refused while Kairos restarts is worth retrying too.
        shouldRetry: () => true,
      });
    });
    return this.ws;
  }
}

function iso(value: string | Date): string {
  return typeof value === 'string' ? value : value.toISOString();
}

async function resolveWebSocket(impl: unknown): Promise<unknown> {
  if (impl) return impl;
  if (typeof (globalThis as { WebSocket?: unknown }).WebSocket === 'function') return (globalThis as { WebSocket?: unknown }).WebSocket;
  // Node 20 has no global WebSocket. The module name is a variable so that browser bundlers, which
  // always have the global one, never try to bundle this Node-only package.
  const name = 'ws';
  try {
    const mod = (await import(/* @vite-ignore */ /* webpackIgnore: true */ name)) as { default?: unknown; WebSocket?: unknown };
    return mod.default ?? mod.WebSocket;
  } catch (error) {
    throw new KairosError('NETWORK_ERROR', 'No WebSocket implementation: pass webSocketImpl or install the ws package', { cause: error });
  }
}
