import type { Collection, Db } from 'mongodb';
import type { JobDoc } from '../domain/job.js';
import type { ExecutionDoc } from '../domain/execution.js';
import type { TenantDoc } from '../domain/tenant.js';
import type { ApiKeyDoc } from '../domain/apiKey.js';
import type { BulkItemChunkDoc, BulkOperationDoc } from '../domain/bulkOperation.js';
import type { ChangeDoc } from '../domain/change.js';
import type { CalendarDoc } from '../domain/calendar.js';
import type { AlertChannelDoc, AlertDoc, AlertRuleDoc } from '../domain/alert.js';

/** Typed handles on Kairos' collections. Only the store layer uses them. */
export interface Collections {
  jobs: Collection<JobDoc>;
  executions: Collection<ExecutionDoc>;
  tenants: Collection<TenantDoc>;
  apiKeys: Collection<ApiKeyDoc>;
  bulkOperations: Collection<BulkOperationDoc>;
  bulkOperationItems: Collection<BulkItemChunkDoc>;
  changes: Collection<ChangeDoc>;
  calendars: Collection<CalendarDoc>;
  alertChannels: Collection<AlertChannelDoc>;
  alertRules: Collection<AlertRuleDoc>;
  alerts: Collection<AlertDoc>;
}

export function collections(db: Db): Collections {
  return {
    jobs: db.collection<JobDoc>('jobs'),
    executions: db.collection<ExecutionDoc>('executions'),
    tenants: db.collection<TenantDoc>('tenants'),
    apiKeys: db.collection<ApiKeyDoc>('apiKeys'),
    bulkOperations: db.collection<BulkOperationDoc>('bulkOperations'),
    bulkOperationItems: db.collection<BulkItemChunkDoc>('bulkOperationItems'),
    changes: db.collection<ChangeDoc>('changes'),
    calendars: db.collection<CalendarDoc>('calendars'),
    alertChannels: db.collection<AlertChannelDoc>('alertChannels'),
    alertRules: db.collection<AlertRuleDoc>('alertRules'),
    alerts: db.collection<AlertDoc>('alerts'),
  };
}
