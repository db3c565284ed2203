import 'reflect-metadata';
import { buildSchema, type PubSub } from 'type-graphql';
import type { GraphQLSchema } from 'graphql';
import { authChecker } from '../resolvers/auth-checker.js';
import { resolvers } from '../resolvers/index.js';

/**
 * type-graphql 2.0.0-rc.4 refuses to build a schema with a @Subscription unless `pubSub` is given,
 * even when every subscription has its own `subscribe` (ours reads the Redis event bus), so it is never used.
 */
const unusedPubSub: PubSub = {
  publish: () => undefined,
  subscribe: () => {
    throw new Error('subscriptions use their own subscribe function');
  },
};

let built: Promise<GraphQLSchema> | null = null;

/** The Kairos schema, built once per process (building is pure). */
export function kairosSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({ resolvers, authChecker, pubSub: unusedPubSub, validate: false });
  return built;
}
