import type { ExecutionStore } from '../store/executionStore.js';
import type { JobStore } from '../store/jobStore.js';
import type { CalendarStore } from '../store/calendarStore.js';
import type { JobCounter } from '../quotas/jobCounter.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { JobScheduling } from '../scheduler/jobScheduling.js';
import type { StatusPublisher } from '../transitions/statusEvents.js';
import type { TenantQuotas } from '../quotas/tenantQuotas.js';
import type { WaitingCounts } from '../quotas/waitingQuota.js';
import type { Logger } from '../logger.js';
import type { ChangeRecorder } from '../changes/changeLog.js';
import type { AlertSettingsStore } from '../store/alertSettingsStore.js';

/**
 * What the job lifecycle operations need: the caller's tenant-scoped stores, the scheduling side's
 * port, and the process-wide queue and event bus.
 */
export interface JobDeps {
  jobs: JobStore;
  executions: ExecutionStore;
  /** The caller's named calendars, which a job's exclusions may name. */
  calendars: CalendarStore;
  /** The scheduling side (due index, near-term materialisation), told about each job written. */
  scheduling: JobScheduling;
  /** Where executions are enqueued and cancelled ones removed. */
  queues: ExecutionQueues;
  /** Where status events are published (publish only). */
  events: StatusPublisher;
  logger: Logger;
  handlerNames: ReadonlySet<string>;
  /** Each tenant's job count (createJob's quota check; deleteJob gives a slot back). */
  jobCounter: JobCounter;
  /** The tenants' quotas, from the cache (maxWaitingExecutions for triggerJob and retryExecution). */
  quotas: TenantQuotas;
  /** Each tenant's waiting executions, for the maxWaitingExecutions check of triggerJob and retryExecution. */
  waiting: WaitingCounts;
  /** ALLOW_PRIVATE_TARGETS: whether a target URL may name a private IP literal. */
  allowPrivateTargets: boolean;
  /** The caller's change history: each operation records what it changed (see ChangeLog). */
  changes: ChangeRecorder;
  /** The caller's alert rules: deleteJob deletes those watching the job. */
  alertRules: Pick<AlertSettingsStore, 'deleteRulesOfJob'>;
}
