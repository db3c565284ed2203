import { kairosSchema } from '../../src/api/buildSchema.js';

/** The root fields of the schema the server builds, by operation type. */
export interface SchemaOperations {
  queries: string[];
  mutations: string[];
  subscriptions: string[];
}

/**
 * Read from the built schema rather than listed by hand, so a test matrix that compares its own
 * list with these fails as soon as the schema gains an operation the matrix does not cover.
 */
export async function schemaOperations(): Promise<SchemaOperations> {
  const schema = await kairosSchema();
  const names = (type: { getFields(): Record<string, unknown> } | null | undefined) => Object.keys(type?.getFields() ?? {}).sort();
  return {
    queries: names(schema.getQueryType()),
    mutations: names(schema.getMutationType()),
    subscriptions: names(schema.getSubscriptionType()),
  };
}
