import type DataLoader from 'dataloader';
import type { Identity } from '../domain/identity.js';
import type { KairosError } from '../errors/index.js';
import type { JobDoc } from '../domain/job.js';
import type { ExecutionDoc } from '../domain/execution.js';
import type { JobStore } from '../store/jobStore.js';
import type { CalendarStore } from '../store/calendarStore.js';
import type { ExecutionStore } from '../store/executionStore.js';
import type { ApiKeyStore } from '../store/apiKeyStore.js';
import type { BulkOperationStore } from '../store/bulkOperationStore.js';
import type { OwnTenantStore } from '../store/ownTenantStore.js';
import type { AlertSettingsStore } from '../store/alertSettingsStore.js';
import type { AlertStore } from '../store/alertStore.js';
import type { AlertEventMessage } from '../events/alertEventBus.js';
import type { ChangeStore } from '../store/changeStore.js';
import type { ChangeLog } from '../changes/changeLog.js';
import type { TenantEvents } from '../events/tenantEvents.js';
import type { RequestServices } from './appServices.js';

/**
 * Stores, events and loaders bound to the caller's tenant; built per request (or per subscription).
 * Resolvers reach tenant data only through these, never with a tenant id of their own.
 */
export interface TenantScope {
  identity: Identity;
  jobs: JobStore;
  executions: ExecutionStore;
  /** The tenant's named calendars of exclusion windows. */
  calendars: CalendarStore;
  apiKeys: ApiKeyStore;
  /** The tenant's bulk retries and cancels. */
  bulkOperations: BulkOperationStore;
  /** The tenant's own record (quota, webhook secret). */
  tenant: OwnTenantStore;
  /** The tenant's alert channels and rules. */
  alertSettings: AlertSettingsStore;
  /** The tenant's raised alerts. */
  alerts: AlertStore;
  /** The tenant's alerts as they are raised (`alertRaised`). */
  alertEvents: { stream(): Promise<AsyncIterableIterator<AlertEventMessage>> };
  /** The tenant's change history, to read. */
  changes: ChangeStore;
  /** Where the caller's mutations record what they change, as the caller (see ChangeLog). */
  changeLog: ChangeLog;
  events: TenantEvents;
  /** Batches Execution.job lookups of one request into one query. */
  jobLoader: DataLoader<string, JobDoc | null>;
  /** Job.lastExecution of one request's jobs (by job id): one bounded read per job, each job read once. */
  lastExecutionLoader: DataLoader<string, ExecutionDoc | null>;
}

/** The GraphQL context. `scope` is null when the token is missing or invalid (`authError` says why). */
export interface Context {
  /** Process-wide services, none of them tenant data. */
  app: RequestServices;
  scope: TenantScope | null;
  authError: KairosError | null;
  /** When the caller's token stops being valid (a JWT's exp plus the clock tolerance); null for API keys or without a scope. */
  validUntil: Date | null;
}
