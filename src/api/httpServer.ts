import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { ApolloServer, HeaderMap } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import type { AppServices } from '../resolvers/appServices.js';
import type { Context } from '../resolvers/context.type.js';
import { createContext } from './createContext.js';
import { makeFormatError } from './formatError.js';
import { MAX_TOKENS } from './queryLimits.js';
import { validationRules } from './validationRules.js';
import { nestingRefusal } from './nestingLimits.js';
import { writeRateLimit } from './writeRateLimit.js';
import { noSubscriptionsOverHttp } from './noSubscriptionsOverHttp.js';
import { uiRoutes, type UiHandler } from './uiRoutes.js';
import { operationMetrics } from './operationMetrics.js';
import { operationTracing } from './operationTracing.js';
import { paceRefusals } from './paceRefusals.js';
import { TenantRequestGate, tooManyAtOnce, type TenantRequestGateOptions } from './tenantRequestGate.js';
import { GraphQLWebSockets } from './webSocketServer.js';
import { LIMITS } from '../domain/jobLimits.js';

/** Request bodies above this are refused before parsing. */
const MAX_BODY_BYTES = 1024 * 1024;
/**
 * The answer to a body over MAX_BODY_BYTES. It names the payload limit too: a body that large is
 * usually a job's payload, and the client would otherwise learn that limit only after cutting it
 * down to under this one.
 */
const BODY_TOO_LARGE = `Request body over ${MAX_BODY_BYTES / (1024 * 1024)} MiB; a job's payload must be at most ${LIMITS.payloadBytes / 1024} KiB of JSON`;
/** All request headers together, Authorization included. */
const MAX_HEADER_BYTES = 16 * 1024;

export interface ApiServerOptions {
  port: number;
  /** The address to listen on (HOST). */
  host: string;
  /** `/readyz`: true when MongoDB and Redis answer. */
  ready: () => Promise<boolean>;
  /** How often a subscription socket opened with an API key is checked for revocation. Default 30 s. */
  socketRecheckMs?: number;
  /** RATE_LIMITED answers over HTTP wait up to this long (their Retry-After at most) before they go out (paceRefusals.ts). Default 0. */
  paceRefusalsMs?: number;
  /** Each tenant's operations at once and waiting in this process, over HTTP and WebSocket (tenantRequestGate.ts). Default 4 and 100. */
  tenantRequests?: TenantRequestGateOptions;
}

/**
 * The api role's HTTP server: POST /graphql through Apollo Server, graphql-ws on the same port and
 * path (webSocketServer.ts), `/healthz` and `/readyz`. Owns the HTTP and WebSocket servers; `stop()` closes them.
 */
export class ApiServer {
  private readonly httpServer: http.Server;
  private readonly apollo: ApolloServer<Context>;
  private readonly sockets: GraphQLWebSockets;
  /** The dashboard at /ui (and GraphiQL in development mode). */
  private readonly ui: UiHandler;
  private readonly formatError: ReturnType<typeof makeFormatError>;
  /** Each tenant's turns in this process, shared by HTTP requests and graphql-ws operations. */
  private readonly requests: TenantRequestGate;

  constructor(
    schema: GraphQLSchema,
    private readonly app: AppServices,
    private readonly options: ApiServerOptions,
  ) {
    this.formatError = makeFormatError(app.logger, app.development);
    this.requests = new TenantRequestGate(options.tenantRequests ?? { inFlight: 4, queued: 100 });
    this.apollo = new ApolloServer<Context>({
      schema,
      formatError: this.formatError,
      introspection: app.development,
      includeStacktraceInErrorResponses: false,
      validationRules: [...validationRules(app.development), noSubscriptionsOverHttp],
      // Automatic persisted queries are not offered: no client needs them, and their cache is memory anyone could fill.
      persistedQueries: false,
      parseOptions: { maxTokens: MAX_TOKENS },
      // One operation per request: a batch would multiply every per-operation limit.
      allowBatchedHttpRequests: false,
      plugins: [
        writeRateLimit,
        operationMetrics(app.requests.metrics),
        paceRefusals(options.paceRefusalsMs ?? 0),
        operationTracing(app.tracer),
        ...(app.development ? [] : [ApolloServerPluginLandingPageDisabled()]),
      ],
    });
    this.ui = uiRoutes({ development: app.development });
    // Explicit rather than Node's default (which a flag can raise): larger headers get 431 from the parser.
    this.httpServer = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => void this.handle(req, res));
    this.sockets = new GraphQLWebSockets(this.httpServer, {
      schema,
      app,
      formatError: this.formatError,
      requests: this.requests,
      maxPayloadBytes: MAX_BODY_BYTES,
      socketRecheckMs: options.socketRecheckMs,
    });
  }

  get port(): number {
    const address = this.httpServer.address();
    return typeof address === 'object' && address ? address.port : this.options.port;
  }

  async start(): Promise<void> {
    await this.apollo.start();
    this.sockets.start();
    await new Promise<void>((resolve, reject) => {
      this.httpServer.once('error', reject);
      this.httpServer.listen(this.options.port, this.options.host, () => resolve());
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      if (url.pathname === '/healthz') return send(res, 200, { status: 'ok' });
      // Not on the API port, which the ingress exposes: metrics are on METRICS_PORT (metricsServer.ts).
      if (url.pathname === '/metrics') return send(res, 404, { error: 'Not found; metrics are served on METRICS_PORT' });
      if (url.pathname === '/readyz') {
        const ready = await this.options.ready().catch(() => false);
        return send(res, ready ? 200 : 503, { status: ready ? 'ready' : 'unavailable' });
      }
      if (await this.ui(req, res, url)) return;
      if (url.pathname !== '/graphql') return send(res, 404, { error: 'Not found; the API is at /graphql' });
      const body = await readBody(req);
      if (body === null) {
        // The rest of the body is not read and the socket is dropped: told so, a client sends its next request on a new connection.
        res.setHeader('connection', 'close');
        return send(res, 413, { errors: [{ message: BODY_TOO_LARGE, extensions: { code: 'BAD_USER_INPUT' } }] });
      }
      const headers = new HeaderMap();
      for (const [key, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
      }
      let parsed: unknown = undefined;
      if (body.length > 0) {
        try {
          parsed = JSON.parse(body);
        } catch {
          return send(res, 400, { errors: [{ message: 'The request body is not valid JSON', extensions: { code: 'BAD_USER_INPUT' } }] });
        }
        if (Array.isArray(parsed)) {
          return send(res, 400, {
            errors: [
              { message: 'Batched requests are not supported; send one operation per request', extensions: { code: 'BAD_USER_INPUT' } },
            ],
          });
        }
      }
      // Refused on the text, before graphql-js parses (recursively) what a hostile depth would overflow.
      const tooDeep = nestingRefusal(...requestDocument(parsed, url.searchParams));
      if (tooDeep) return send(res, 400, { errors: [{ message: tooDeep, extensions: { code: 'BAD_USER_INPUT' } }] });
      const context = await createContext(this.app, req.headers.authorization);
      const tenantId = context.scope?.identity.tenantId;
      const release = tenantId === undefined ? () => undefined : await this.requests.enter(tenantId);
      if (!release) return this.refuseBusyTenant(res, tenantId!);
      try {
        const response = await this.apollo.executeHTTPGraphQLRequest({
          httpGraphQLRequest: { method: req.method ?? 'GET', headers, search: url.search, body: parsed },
          context: async () => context,
        });
        for (const [key, value] of response.headers) res.setHeader(key, value);
        res.statusCode = response.status ?? 200;
        if (response.body.kind === 'complete') {
          res.end(response.body.string);
        } else {
          for await (const chunk of response.body.asyncIterator) res.write(chunk);
          res.end();
        }
      } finally {
        release();
      }
    } catch (error) {
      this.app.logger.error('http request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent)
        send(res, 500, { errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
      else res.end();
    }
  }

  /** A tenant with its whole queue of requests waiting in this process: RATE_LIMITED, to retry in a second. */
  private refuseBusyTenant(res: ServerResponse, tenantId: string): void {
    this.app.requests.metrics.quotaRefused('rate', tenantId);
    const refused = tooManyAtOnce();
    res.setHeader('retry-after', '1');
    send(res, 429, { errors: [this.formatError({ message: refused.message }, refused)] });
  }

  /** Stops accepting, closes subscriptions with a normal close, then the HTTP server. */
  async stop(): Promise<void> {
    await this.sockets.stop();
    this.httpServer.closeAllConnections();
    await new Promise<void>((resolve) => this.httpServer.close(() => resolve()));
    await this.apollo.stop();
  }
}

/** The document and variables of a POST body or of a GET's query string (variables as JSON there; unparsable ones are left to Apollo). */
function requestDocument(body: unknown, search: URLSearchParams): [unknown, unknown] {
  if (body && typeof body === 'object') return [(body as { query?: unknown }).query, (body as { variables?: unknown }).variables];
  let variables: unknown;
  try {
    variables = JSON.parse(search.get('variables') ?? 'null');
  } catch {
    variables = undefined;
  }
  return [search.get('query'), variables];
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

/** The body as text, or null when it exceeds MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
