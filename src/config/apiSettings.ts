import type { BackfillSettings } from './backfillSettings.js';
import type { BulkSettings } from './bulkSettings.js';

/** The api role's settings: where it listens, how it verifies tokens, and its per-tenant limits on one process. */
export interface ApiSettings {
  /** PORT: where the api serves GraphQL (HTTP and WebSocket), the dashboard and the probes. Default 4000; 0 picks a free port. */
  port: number;
  /**
   * HOST: the address the api (and a process's `/metrics` server) listens on. Default 127.0.0.1 in
   * development mode, so a laptop's `npm start` (often with ALLOW_PRIVATE_TARGETS on) is not reachable
   * from the network; 0.0.0.0 in production mode (the image and the chart also set it).
   */
  host: string;
  /**
   * Token verification. `maxTtlSeconds` (JWT_MAX_TTL_SECONDS): a JWT whose `exp` lies further
   * ahead than this is refused. Default 2 592 000 (30 days).
   */
  jwt: { secret?: string; publicKey?: string; issuer?: string; audience?: string; maxTtlSeconds: number };
  /**
   * SCHEDULE_SEARCHES_PER_MINUTE: schedule searches (previewSchedule occurrences) one tenant may ask for
   * a minute, in bursts of what 10 s refill; past it previewSchedule is RATE_LIMITED. Default 3000.
   */
  scheduleSearchesPerMinute: number;
  /**
   * SCHEDULE_SEARCHES_PER_SECOND_PER_PROCESS: schedule searches one api process answers a second for
   * all tenants together, in bursts of one second's worth; past it previewSchedule is RATE_LIMITED.
   * Default 500 (at most a tenth of the event loop); at least 100, one preview of 100.
   */
  scheduleSearchesPerSecondPerProcess: number;
  /**
   * SUBSCRIPTION_EVENTS_PER_SECOND: events one tenant's subscriptions may be sent a second by one api
   * process, in bursts of one second's worth; past it the subscription that finds it spent ends with
   * RATE_LIMITED. Default 1000.
   */
  subscriptionEventsPerSecond: number;
  /**
   * RATE_LIMITED_ANSWER_DELAY_MS: a request refused for rate over HTTP is answered after its Retry-After,
   * up to this long, so a client that retries at once is paced instead of looping on refusals. 0 answers at once. Default 1000.
   */
  rateLimitedAnswerDelayMs: number;
  /**
   * API_TENANT_REQUESTS_IN_FLIGHT and API_TENANT_REQUESTS_QUEUED: one tenant's GraphQL requests over
   * HTTP and WebSocket (one gate for both) that one api process runs at once, and how many more wait
   * their turn (first come first served); one past both is answered RATE_LIMITED with Retry-After 1.
   * Defaults 4 and 100.
   */
  tenantRequests: { inFlight: number; queued: number };
  /**
   * API_TENANT_SCANS_IN_FLIGHT: one tenant's reads of its executions across all its jobs (an
   * executions page without a job, executionStats without a job) that one api process runs at once;
   * the others wait their turn. On FerretDB each loads every execution of the tenant (its sorts run
   * in FerretDB), so a few at once take the embedded server's cores from every tenant. Default 1.
   */
  tenantScansInFlight: number;
  /** Bulk retries and cancels: their limit, pace, and how a crashed one is resumed. */
  bulk: BulkSettings;
  /** backfillJob: its maximum per call and its pace. */
  backfill: BackfillSettings;
}
