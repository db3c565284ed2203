import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS } from './buckets.js';

/**
 * The families the api records: GraphQL operations, subscriptions and quota refusals (the worker
 * records the concurrency refusals too). `tenant` is `['tenant']` with METRICS_TENANT_LABEL, else empty.
 */
export function apiFamilies(registers: Registry[], tenant: string[]) {
  const families = {
    subscriptionsOpen: new Gauge({
      name: 'kairos_subscriptions_open',
      help: 'executionUpdated subscriptions open on this api process.',
      registers,
    }),
    subscriptionEvents: new Counter({
      name: 'kairos_subscription_events_sent_total',
      help: 'Events relayed to subscribers.',
      registers,
    }),
    graphqlOperations: new Counter({
      name: 'kairos_graphql_operations_total',
      help: 'GraphQL operations over HTTP, by operation name (anonymous; other past 200 distinct names; unauthenticated or invalid without their name), type and first error code (none when it succeeded).',
      labelNames: ['operation', 'type', 'code'],
      registers,
    }),
    graphqlDuration: new Histogram({
      name: 'kairos_graphql_operation_duration_seconds',
      help: 'Latency of GraphQL operations over HTTP, from request to response.',
      labelNames: ['operation', 'type'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    quotaRefusals: new Counter({
      name: 'kairos_quota_refusals_total',
      help: 'Refusals by quota kind: max_jobs (createJob), rate (maxExecutionsPerMinute), concurrency (an execution waiting for a tenant slot).',
      labelNames: ['kind', ...tenant],
      registers,
    }),
  };
  // Zero series, so a rate() works from the first scrape (with a tenant label, none is known up front).
  if (tenant.length === 0) for (const kind of ['max_jobs', 'rate', 'concurrency']) families.quotaRefusals.inc({ kind }, 0);
  families.subscriptionEvents.inc(0);
  return families;
}
