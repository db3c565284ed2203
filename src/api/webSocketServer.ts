import type http from 'node:http';
import { setMaxListeners } from 'node:events';
import {
  GraphQLError,
  OperationTypeNode,
  execute,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
  type ExecutionArgs,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import type { Context as ConnectionContext, SubscribePayload } from 'graphql-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { KairosError, RateLimitedError } from '../errors/index.js';
import { errorMessage } from '../logger.js';
import type { AppServices } from '../resolvers/appServices.js';
import type { Context } from '../resolvers/context.type.js';
import type { makeFormatError } from './formatError.js';
import { LiveConnections } from './liveConnections.js';
import { nestingRefusal } from './nestingLimits.js';
import { OperationTurns } from './operationTurns.js';
import { MAX_TOKENS } from './queryLimits.js';
import { sharedSubscribe } from './sharedSubscribe.js';
import { socketAuth, type SocketExtra } from './socketAuth.js';
import { tooManyAtOnce, type TenantRequestGate } from './tenantRequestGate.js';
import { validationRules } from './validationRules.js';
import { chargeWrites } from './writeRateLimit.js';

type Connection = ConnectionContext<Record<string, unknown>, Extra & Partial<SocketExtra>>;

export interface GraphQLWebSocketsOptions {
  schema: GraphQLSchema;
  app: AppServices;
  formatError: ReturnType<typeof makeFormatError>;
  /** The tenants' turns, the same gate as their HTTP requests'. */
  requests: TenantRequestGate;
  /** A frame over this closes its socket with 1009 (the HTTP body limit). */
  maxPayloadBytes: number;
  /** How often a socket opened with an API key is checked for revocation. Default 30 s. */
  socketRecheckMs?: number;
}

/**
 * graphql-ws on the api's HTTP server, same port and path (/graphql). Every operation sent over a
 * socket passes what an HTTP request passes before it runs (see `admit`), so neither transport
 * offers what the other refuses. graphql-ws still executes it: `admit` hands it the arguments.
 */
export class GraphQLWebSockets {
  private readonly server: WebSocketServer;
  private cleanup: { dispose: () => void | Promise<void> } | null = null;
  /** Each operation's turn in the tenant's request gate, from `admit` to the end of its execution. */
  private readonly turns = new OperationTurns();
  /** Aborted when its socket closes: the socket's operations still waiting for a turn leave the queue. */
  private readonly closedSignals = new WeakMap<WebSocket, AbortSignal>();
  // Each socket and operation holds a listener on the event stream: the tenants' caps bound them.
  private readonly connections = new LiveConnections();
  private readonly auth: ReturnType<typeof socketAuth>;

  constructor(
    httpServer: http.Server,
    private readonly options: GraphQLWebSocketsOptions,
  ) {
    // ws accepts 100 MiB messages by default: hold them to the HTTP body limit (larger ones close the socket with 1009).
    this.server = new WebSocketServer({ server: httpServer, path: '/graphql', maxPayload: options.maxPayloadBytes });
    this.auth = socketAuth(options.app, { recheckEveryMs: options.socketRecheckMs, connections: this.connections });
  }

  start(): void {
    const { schema, formatError } = this.options;
    this.cleanup = useServer<Record<string, unknown>, Partial<SocketExtra>>(
      {
        schema,
        onConnect: (ctx) => this.auth.onConnect(ctx),
        onSubscribe: (ctx, id, payload) => this.admit(ctx, id, payload),
        // A query or mutation gives its turn back once executed; a subscription once its stream is set
        // up: the events it then sends are bounded by the tenant's EventDeliveryBudget instead.
        execute: this.turns.holding(execute),
        // One execution per event for the subscribers of a tenant and role that sent the same document.
        subscribe: this.turns.holding(
          sharedSubscribe((contextValue) => {
            const identity = (contextValue as Context).scope?.identity;
            return identity ? `${identity.tenantId}\u0000${identity.role}` : null;
          }),
        ),
        // The same mapping as over HTTP: codes kept, internal messages never sent to the client.
        onNext: (_ctx, _id, _payload, _args, result) =>
          result.errors ? { ...result, errors: result.errors.map((e) => formatError(asRequestError(e), e)) } : undefined,
        onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatError(asRequestError(e), e)),
      },
      this.server,
    );
    // Registered after graphql-ws's own listener, which prints a multi-line stack trace to the
    // console for every socket error (a frame over maxPayload among them): one log line instead.
    this.server.on('connection', (socket) => this.logSocketErrors(socket));
  }

  /** Closes every socket with a normal close (1001), then the WebSocket server. */
  async stop(): Promise<void> {
    await this.cleanup?.dispose();
    for (const client of this.server.clients) client.close(1001, 'Server shutting down');
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * What an operation passes before graphql-ws runs it, in an HTTP request's order: the nesting
   * limit on the text, the socket's and tenant's operation caps, authentication, a turn in the
   * tenant's request gate (held until its execution ends), parsing with the token limit, validation
   * (the query limits, cost included), and for a mutation the write rate. Returns the arguments
   * graphql-ws executes, or the errors it sends as this operation's `error` message: a refusal ends
   * the operation, never the socket.
   */
  private async admit(ctx: Connection, id: string, payload: SubscribePayload): Promise<ExecutionArgs | readonly GraphQLError[]> {
    const { app, schema } = this.options;
    const tooDeep = nestingRefusal(payload.query, payload.variables);
    if (tooDeep) return [new GraphQLError(tooDeep, { extensions: { code: 'BAD_USER_INPUT' } })];
    // Synchronous, so a burst is admitted in arrival order; the operations running keep their events.
    const overCap = this.connections.operationRefusal(ctx);
    if (overCap) return [new GraphQLError(overCap.message, { originalError: overCap })];
    let context: Context | null = null;
    // Given back on every way out, except to the execution it is handed to.
    let release: (() => void) | null = null;
    try {
      context = await this.auth.context(ctx);
      const tenantId = context.scope?.identity.tenantId;
      if (tenantId !== undefined) {
        const closed = this.closedSignal(ctx.extra.socket);
        release = await this.options.requests.enter(tenantId, closed);
        // graphql-ws sends nothing for an operation the client completed or whose socket closed meanwhile.
        if (closed.aborted || !(id in ctx.subscriptions)) return [new GraphQLError('The operation ended before its turn')];
        if (!release) {
          const refused = tooManyAtOnce();
          app.requests.metrics.quotaRefused('rate', tenantId);
          return [new GraphQLError(refused.message, { originalError: refused })];
        }
      }
      const document = parse(payload.query, { maxTokens: MAX_TOKENS });
      const invalid = validate(schema, document, [...specifiedRules, ...validationRules(app.development)]);
      if (invalid.length > 0) return invalid;
      const operation = getOperationAST(document, payload.operationName);
      if (!operation) {
        const message = payload.operationName
          ? `Unknown operation named "${payload.operationName}".`
          : 'Must provide operation name if query contains multiple operations.';
        // Apollo's words and code for the same document over HTTP.
        return [new GraphQLError(message, { extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } })];
      }
      // Mutations sent over the socket count against the write rate as over HTTP.
      if (operation.operation === OperationTypeNode.MUTATION) await chargeWrites(context, document, operation);
      if (release) this.turns.hand(context, release);
      release = null;
      return { schema, document, operationName: payload.operationName, variableValues: payload.variables, contextValue: context };
    } catch (error) {
      if (error instanceof RateLimitedError) app.requests.metrics.quotaRefused('rate', context?.scope?.identity.tenantId ?? 'unknown');
      if (error instanceof KairosError) return [new GraphQLError(error.message, { originalError: error })];
      if (error instanceof GraphQLError) return [error];
      // Not the document's fault (e.g. the quota lookup found MongoDB down).
      app.logger.error('could not admit a WebSocket operation', { error: errorMessage(error) });
      return [new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL_SERVER_ERROR' } })];
    } finally {
      release?.();
    }
  }

  /** The signal aborted when `socket` closes; one per socket. */
  private closedSignal(socket: WebSocket): AbortSignal {
    let signal = this.closedSignals.get(socket);
    if (!signal) {
      const controller = new AbortController();
      // One listener per operation waiting on this socket, bounded by its operation cap.
      setMaxListeners(0, controller.signal);
      if (socket.readyState === socket.CLOSED) controller.abort();
      else socket.once('close', () => controller.abort());
      this.closedSignals.set(socket, (signal = controller.signal));
    }
    return signal;
  }

  /** Replaces graphql-ws's console.error on socket errors with one structured line; ws has already closed the socket with the matching code (1009 for a frame over maxPayload). */
  private logSocketErrors(socket: WebSocket): void {
    socket.removeAllListeners('error');
    socket.on('error', (error: Error & { code?: string }) => {
      const oversized = error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';
      this.options.app.logger.warn(oversized ? 'WebSocket frame over the size limit refused' : 'WebSocket error', {
        code: error.code ?? 'unknown',
        ...(oversized ? { limitBytes: this.options.maxPayloadBytes } : { error: errorMessage(error) }),
      });
      if (socket.readyState === socket.OPEN) socket.close(1011, 'Internal server error');
    });
  }
}

/**
 * graphql-ws reports parse, validation and variable errors without the codes Apollo gives them over
 * HTTP. An error with no path and no code never reached a resolver: it is the caller's input.
 */
function asRequestError(error: GraphQLError): GraphQLFormattedError {
  const formatted = error.toJSON();
  if (error.path || error.extensions?.code) return formatted;
  return { ...formatted, extensions: { ...formatted.extensions, code: 'GRAPHQL_VALIDATION_FAILED' } };
}
