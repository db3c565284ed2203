import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import { KairosError, type GraphQLErrorPayload } from './errors.js';

/** A token, or a function giving the current one (called for every request and every WebSocket connection). */
export type Credential = string | (() => string | Promise<string>);

/** Opt-in retry of requests refused with RATE_LIMITED; Kairos refuses such a request before running any of it, so a retry is safe for mutations too. */
export interface RateLimitRetry {
  /** Retries after the first refusal. Default 3. */
  maxRetries?: number;
  /** A refusal asking for a longer wait than this is thrown at once. Default 60. */
  maxWaitSeconds?: number;
}

export interface TransportOptions {
  url: string;
  credential?: Credential;
  fetch: typeof fetch;
  headers?: Record<string, string>;
  retryRateLimited?: RateLimitRetry | false;
  /** How a retry waits; replaced in tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export async function bearer(credential: Credential | undefined): Promise<string | undefined> {
  if (credential === undefined) return undefined;
  const value = typeof credential === 'function' ? await credential() : credential;
  return `Bearer ${value}`;
}

/** GraphQL over HTTP POST: one typed document in, its data out, or a KairosError. */
export class Transport {
  constructor(private readonly options: TransportOptions) {}

  async request<TResult, TVariables>(
    document: DocumentTypeDecoration<TResult, TVariables>,
    variables: TVariables,
    requestOptions: RequestOptions = {},
  ): Promise<TResult> {
    const retry = this.options.retryRateLimited;
    const maxRetries = retry ? (retry.maxRetries ?? 3) : 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once<TResult>(String(document), variables, requestOptions.signal);
      } catch (error) {
        if (!(error instanceof KairosError) || error.code !== 'RATE_LIMITED' || attempt >= maxRetries) throw error;
        const waitSeconds = error.retryAfterSeconds ?? 1;
        if (retry && waitSeconds > (retry.maxWaitSeconds ?? 60)) throw error;
        await (this.options.sleep ?? sleep)(waitSeconds * 1000, requestOptions.signal);
      }
    }
  }

  private async once<TResult>(query: string, variables: unknown, signal?: AbortSignal): Promise<TResult> {
    const authorization = await bearer(this.options.credential);
    let response: Response;
    try {
      response = await this.options.fetch(this.options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          ...this.options.headers,
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({ query, variables: variables ?? {} }),
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new KairosError('NETWORK_ERROR', `Could not reach Kairos at ${this.options.url}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    let body: { data?: TResult | null; errors?: GraphQLErrorPayload[] };
    try {
      body = (await response.json()) as typeof body;
    } catch (error) {
      throw new KairosError('NETWORK_ERROR', `Kairos answered HTTP ${response.status} without a GraphQL response`, { status: response.status, cause: error });
    }
    if (body.errors?.length) {
      const error = KairosError.fromGraphQLErrors(body.errors, response.status);
      // The Retry-After header and extensions.retryAfterSeconds say the same; the header wins when both exist.
      const header = Number(response.headers.get('retry-after'));
      if (error.code === 'RATE_LIMITED' && Number.isFinite(header) && header > 0) {
        throw new KairosError('RATE_LIMITED', error.message, { details: { ...error.details, retryAfterSeconds: header }, status: error.status, path: error.path, errors: error.errors });
      }
      throw error;
    }
    if (!body.data) throw new KairosError('NETWORK_ERROR', `Kairos answered HTTP ${response.status} without data`, { status: response.status });
    return body.data;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
