import { closeReason } from './closeReason.js';
import type { WebSocket } from 'ws';
import { CloseCode } from 'graphql-ws';
import { UnavailableError } from '../errors/index.js';
import { errorMessage } from '../logger.js';
import type { AppServices } from '../resolvers/appServices.js';
import type { Context } from '../resolvers/context.type.js';
import { createContext } from './createContext.js';
import { closeAtExpiry } from './closeAtExpiry.js';
import { closeWhenRevoked } from './closeWhenRevoked.js';
import { TOO_MANY_SOCKETS, type CountedConnection, type LiveConnections } from './liveConnections.js';

/** What a graphql-ws connection keeps between its messages. */
export interface SocketExtra {
  readonly socket: WebSocket;
  /** The Authorization value the connection was opened with (connectionParams). */
  authorization?: string | null;
}

export interface SocketAuthOptions {
  /** How often an API key's open socket is checked for revocation. Default 30 s. */
  recheckEveryMs?: number;
  /** The open sockets this process counts against the tenants' socket caps; without it nothing is capped. */
  connections?: LiveConnections;
}

/**
 * Authentication of graphql-ws connections. At connect a bad token closes the socket with 4401
 * before any subscription runs; a JWT's socket is closed the same way when the token expires and
 * an API key's when the key is found revoked. Every operation authenticates again, so a revoked
 * key is refused at its next subscription. A socket past its credential's or tenant's socket cap
 * is closed at connect with 4429 (TOO_MANY_SOCKETS), and counted until it closes otherwise.
 */
export function socketAuth(app: AppServices, options: SocketAuthOptions = {}) {
  const recheckEveryMs = options.recheckEveryMs ?? 30_000;
  return {
    async onConnect(
      ctx: CountedConnection & { connectionParams?: Readonly<Record<string, unknown>>; extra: SocketExtra },
    ): Promise<boolean> {
      const raw = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
      const authorization = typeof raw === 'string' ? raw : null;
      const context = await createContext(app, authorization);
      const { socket } = ctx.extra;
      if (!context.scope) {
        const unavailable = context.authError instanceof UnavailableError;
        socket.close(
          unavailable ? CloseCode.InternalServerError : CloseCode.Unauthorized,
          closeReason(context.authError?.message ?? 'Unauthorized'),
        );
        return false;
      }
      if (options.connections && !(await admitted(app, options.connections, ctx, context.scope.identity))) return false;
      ctx.extra.authorization = authorization;
      if (context.validUntil) closeAtExpiry(socket, context.validUntil, app.requests.clock);
      else {
        const stillValid = async () => {
          const recheck = await createContext(app, authorization);
          // Unreachable database: not a revocation; closeWhenRevoked keeps the socket and tries again.
          if (recheck.authError instanceof UnavailableError) throw recheck.authError;
          return recheck.scope !== null;
        };
        closeWhenRevoked(socket, stillValid, recheckEveryMs, (error) =>
          app.logger.warn('could not recheck a socket credential', { error: errorMessage(error) }),
        );
      }
      return true;
    },

    async context(ctx: { extra: SocketExtra }): Promise<Context> {
      const context = await createContext(app, ctx.extra.authorization);
      // The operation then fails with authError; only a credential found bad ends the connection.
      if (!context.scope && !(context.authError instanceof UnavailableError))
        ctx.extra.socket.close(CloseCode.Unauthorized, closeReason(context.authError?.message ?? 'Unauthorized'));
      return context;
    },
  };
}

/** Counts the socket against its tenant's socket caps, or closes it (4429, or 4500 when the quota cannot be read). */
async function admitted(
  app: AppServices,
  connections: LiveConnections,
  ctx: CountedConnection & { extra: SocketExtra },
  identity: { tenantId: string; subject: string },
): Promise<boolean> {
  const { socket } = ctx.extra;
  let quota;
  try {
    quota = await app.requests.operations.quotas.of(identity.tenantId);
  } catch (error) {
    app.logger.error('could not read the socket caps of a tenant', { error: errorMessage(error) });
    socket.close(CloseCode.InternalServerError, 'The connection limits could not be checked right now; try again shortly');
    return false;
  }
  // Closed while the quota was read: its close event has passed, so it must not be counted.
  if (socket.readyState !== socket.OPEN) return false;
  const refusal = connections.admit(ctx, identity.tenantId, identity.subject, quota);
  if (refusal) {
    socket.close(TOO_MANY_SOCKETS, closeReason(refusal));
    return false;
  }
  socket.once('close', () => connections.release(ctx));
  return true;
}
