import type { ApolloServerPlugin } from '@apollo/server';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from '../resolvers/context.type.js';
import { firstErrorCode } from './firstErrorCode.js';

/**
 * An answer refused for rate (RATE_LIMITED) goes out after its Retry-After, up to `maxMs`. A client
 * that sends again at once, as a hostile loop does, is then paced to about one request per `maxMs`
 * per connection instead of as fast as refusals are made (bench:neighbours' tenant A sent 350 refused
 * previews a second on two connections, each costing the process a request's parse and checks); a
 * client that honours Retry-After waits that long anyway. 0 answers at once.
 */
export function paceRefusals(maxMs: number): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      if (maxMs <= 0) return {};
      return {
        async willSendResponse({ response }) {
          if (firstErrorCode(response) !== 'RATE_LIMITED') return;
          const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
          const retryAfterSeconds = Number(errors?.[0].extensions?.retryAfterSeconds);
          const waitMs = Number.isFinite(retryAfterSeconds) ? Math.min(maxMs, retryAfterSeconds * 1000) : maxMs;
          // Unref'd: a paced answer never holds a stopping process.
          await sleep(waitMs, undefined, { ref: false });
        },
      };
    },
  };
}
