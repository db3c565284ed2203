import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';

/**
 * What the dashboard needs from a Kairos client. Kept this small so the TypeScript SDK can replace
 * the thin implementation below without touching the pages.
 */
export interface KairosClient {
  /** Runs a query or mutation over HTTP; rejects with ApiError when the API answers with errors. */
  request<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  /** Starts a subscription over graphql-ws; returns a function that stops it. */
  subscribe<T>(query: string, variables: Record<string, unknown>, sink: { next: (data: T) => void; error: (error: ApiError) => void }): () => void;
  /** Closes the WebSocket (if one was opened). */
  close(): void;
}

/** One error the API answered with: its message, `extensions.code` and, for BAD_USER_INPUT, the field. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

interface GraphQLErrorJson {
  message: string;
  extensions?: { code?: string; field?: string };
}

function toApiError(errors: readonly GraphQLErrorJson[] | undefined, fallback: string): ApiError {
  const first = errors?.[0];
  if (!first) return new ApiError(fallback, 'INTERNAL_SERVER_ERROR');
  return new ApiError(first.message, first.extensions?.code ?? 'INTERNAL_SERVER_ERROR', first.extensions?.field);
}

/** A client for the Kairos API on this page's own origin, sending `token` as the bearer token. */
export function createClient(token: string, endpoint = '/graphql'): KairosClient {
  let ws: WsClient | null = null;
  const wsUrl = () => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${endpoint}`;
  return {
    async request<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query, variables }),
        });
      } catch {
        throw new ApiError('Kairos did not answer; is the api running?', 'NETWORK');
      }
      const body = (await response.json().catch(() => null)) as { data?: T; errors?: GraphQLErrorJson[] } | null;
      if (!body) throw new ApiError(`Kairos answered HTTP ${response.status}`, 'INTERNAL_SERVER_ERROR');
      if (body.errors?.length) throw toApiError(body.errors, 'Request failed');
      return body.data as T;
    },
    subscribe<T>(query: string, variables: Record<string, unknown>, sink: { next: (data: T) => void; error: (error: ApiError) => void }) {
      ws ??= createWsClient({
        url: wsUrl(),
        connectionParams: { authorization: `Bearer ${token}` },
        // Reconnect after a restart of the api; a 4401 (bad token) is not retried by graphql-ws.
        retryAttempts: 20,
        lazy: true,
      });
      return ws.subscribe<T>(
        { query, variables },
        {
          next: (result) => {
            if (result.errors?.length) sink.error(toApiError(result.errors as GraphQLErrorJson[], 'Subscription failed'));
            else if (result.data) sink.next(result.data as T);
          },
          error: (error) => {
            const closed = error as { code?: number; reason?: string };
            if (Array.isArray(error)) sink.error(toApiError(error as GraphQLErrorJson[], 'Subscription failed'));
            else if (closed.code === 4401 || closed.code === 4403) sink.error(new ApiError('The live feed was refused: the token is no longer valid', 'UNAUTHENTICATED'));
            else sink.error(new ApiError('The live feed was lost', 'NETWORK'));
          },
          complete: () => {},
        },
      );
    },
    close() {
      void ws?.dispose();
      ws = null;
    },
  };
}
