import { closeReason } from './closeReason.js';
import type { WebSocket } from 'ws';
import { CloseCode } from 'graphql-ws';
import { UnavailableError } from '../errors/index.js';
import { errorMessage } from '../logger.js';
import type { AppServices } from './appServices.js';
import type { Context } from './context.type.js';
import { createContext } from './createContext.js';
import { closeAtExpiry } from './closeAtExpiry.js';
import { closeWhenRevoked } from './closeWhenRevoked.js';

/** What a graphql-ws connection keeps between its messages. */
export interface SocketExtra {
  readonly socket: WebSocket;
  /** The Authorization value the connection was opened with (connectionParams). */
  authorization?: string | null;
}

export interface SocketAuthOptions {
  /** How often an API key's open socket is checked for revocation. Default 30 s. */
  recheckEveryMs?: number;
}

/**
 * Authentication of graphql-ws connections. At connect a bad token closes the socket with 4401
 * before any subscription runs; a JWT's socket is closed the same way when the token expires and
 * an API key's when the key is found revoked. Every operation authenticates again, so a revoked
 * key is refused at its next subscription.
 */
export function socketAuth(app: AppServices, options: SocketAuthOptions = {}) {
  const recheckEveryMs = options.recheckEveryMs ?? 30_000;
  return {
    async onConnect(ctx: { connectionParams?: Readonly<Record<string, unknown>>; extra: SocketExtra }): Promise<boolean> {
      const raw = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
      const authorization = typeof raw === 'string' ? raw : null;
      const context = await createContext(app, authorization);
      const { socket } = ctx.extra;
      if (!context.scope) {
        const unavailable = context.authError instanceof UnavailableError;
        socket.close(unavailable ? CloseCode.InternalServerError : CloseCode.Unauthorized, closeReason(context.authError?.message ?? 'Unauthorized'));
        return false;
      }
      ctx.extra.authorization = authorization;
      if (context.validUntil) closeAtExpiry(socket, context.validUntil, app.clock);
      else {
        const stillValid = async () => {
          const recheck = await createContext(app, authorization);
          // Unreachable database: not a revocation; closeWhenRevoked keeps the socket and tries again.
          if (recheck.authError instanceof UnavailableError) throw recheck.authError;
          return recheck.scope !== null;
        };
        closeWhenRevoked(socket, stillValid, recheckEveryMs, (error) => app.logger.warn('could not recheck a socket credential', { error: errorMessage(error) }));
      }
      return true;
    },

    async context(ctx: { extra: SocketExtra }): Promise<Context> {
      const context = await createContext(app, ctx.extra.authorization);
      // The operation then fails with authError; only a credential found bad ends the connection.
      if (!context.scope && !(context.authError instanceof UnavailableError)) ctx.extra.socket.close(CloseCode.Unauthorized, closeReason(context.authError?.message ?? 'Unauthorized'));
      return context;
    },
  };
}
