import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { INDEXES } from '../../src/store/indexes.js';

/**
 * Every query the store runs, with the MongoDB index that serves it and the fields the query
 * leads with (equalities first, then the range or sort field): those must be a prefix of the
 * index's key. `_id` is MongoDB's own index. A store method that queries and is missing here fails
 * the test, and so does an index no query names. On FerretDB 1.24 only the equality parts reach
 * PostgreSQL; docs/architecture.md says which paths are designed around that.
 */
const QUERIES: Record<
  string,
  | {
      collection:
        | 'jobs'
        | 'executions'
        | 'apiKeys'
        | 'tenants'
        | 'bulkOperations'
        | 'bulkOperationItems'
        | 'alertChannels'
        | 'alertRules'
        | 'alerts'
        | 'calendars'
        | 'changes';
      index: string;
      fields: string[];
    }
  | { exempt: string }
> = {
  'alertRecords.findById': { collection: 'alerts', index: '_id', fields: ['_id'] },
  'alertRecords.insert': { collection: 'alerts', index: '_id', fields: ['_id'] },
  'alertRecords.recordDelivery': { collection: 'alerts', index: '_id', fields: ['_id'] },
  // The evaluator's read of a tenant's rules and their channels (cached per process: ALERT_RULES_CACHE_MS).
  'alertRecords.rulesOf': { collection: 'alertRules', index: 'tenant_created', fields: ['tenantId'] },
  'alertRecords.rulesOf(channels)': { collection: 'alertChannels', index: 'tenant_created', fields: ['tenantId'] },
  'alertSettingsStore.channels': { collection: 'alertChannels', index: 'tenant_created', fields: ['tenantId', 'createdAt'] },
  'alertSettingsStore.deleteRulesOfJob': { collection: 'alertRules', index: 'tenant_created', fields: ['tenantId'] },
  'alertSettingsStore.deleteChannel': { collection: 'alertChannels', index: '_id', fields: ['_id'] },
  'alertSettingsStore.deleteChannel(rules)': { collection: 'alertRules', index: 'tenant_created', fields: ['tenantId'] },
  'alertSettingsStore.deleteRule': { collection: 'alertRules', index: '_id', fields: ['_id'] },
  'alertSettingsStore.insertChannel': { collection: 'alertChannels', index: '_id', fields: ['_id'] },
  'alertSettingsStore.insertRule': { collection: 'alertRules', index: '_id', fields: ['_id'] },
  'alertSettingsStore.rules': { collection: 'alertRules', index: 'tenant_created', fields: ['tenantId', 'createdAt'] },
  'alertStore.list': { collection: 'alerts', index: 'tenant_raised', fields: ['tenantId', 'raisedAt'] },
  'alertStore.list(jobId)': { collection: 'alerts', index: 'tenant_job_raised', fields: ['tenantId', 'jobId', 'raisedAt'] },
  'apiKeyLookup.findBySecretHash': { collection: 'apiKeys', index: 'secret_hash', fields: ['secretHash'] },
  'apiKeyLookup.touch': { collection: 'apiKeys', index: '_id', fields: ['_id'] },
  'apiKeyStore.delete': { collection: 'apiKeys', index: '_id', fields: ['_id'] },
  'apiKeyStore.insert': { collection: 'apiKeys', index: '_id', fields: ['_id'] },
  'apiKeyStore.list': { collection: 'apiKeys', index: 'tenant_created', fields: ['tenantId', 'createdAt'] },
  'bulkOperationRuns.findById': { collection: 'bulkOperations', index: '_id', fields: ['_id'] },
  'bulkOperationRuns.finish': { collection: 'bulkOperations', index: '_id', fields: ['_id'] },
  'bulkOperationRuns.items': { collection: 'bulkOperationItems', index: '_id', fields: ['_id'] },
  'bulkOperationRuns.recordProgress': { collection: 'bulkOperations', index: '_id', fields: ['_id'] },
  'bulkOperationRuns.running': { collection: 'bulkOperations', index: 'state', fields: ['state'] },
  'bulkOperationStore.create': { collection: 'bulkOperations', index: 'tenant_operation', fields: ['tenantId', 'operationId'] },
  'bulkOperationStore.findById': { collection: 'bulkOperations', index: '_id', fields: ['_id'] },
  'bulkOperationStore.findByOperationId': { collection: 'bulkOperations', index: 'tenant_operation', fields: ['tenantId', 'operationId'] },
  'changeStore.insert': { collection: 'changes', index: '_id', fields: ['_id'] },
  // Equalities first: the tenant (and the job), then the keyset's and sort's `at`; adminOnly is an equality
  // filtered on the way (most records are not admin-only), which FerretDB pushes down with the tenant's.
  'changeStore.list': { collection: 'changes', index: 'tenant_at', fields: ['tenantId', 'at'] },
  'changeStore.list(jobId)': { collection: 'changes', index: 'tenant_job_at', fields: ['tenantId', 'jobId', 'at'] },
  'attemptEnds.addToCancelled': { collection: 'executions', index: '_id', fields: ['_id'] },
  'attemptEnds.writeEnds': { collection: 'executions', index: '_id', fields: ['_id'] },
  'attemptStarts.writeClaims': { collection: 'executions', index: '_id', fields: ['_id'] },
  'calendarStore.copyToJobs': { collection: 'jobs', index: 'tenant_calendar_names', fields: ['tenantId', 'calendarNames'] },
  'calendarStore.count': { collection: 'calendars', index: 'tenant_name', fields: ['tenantId'] },
  'calendarStore.delete': { collection: 'calendars', index: 'tenant_name', fields: ['tenantId', 'name'] },
  'calendarStore.findByName': { collection: 'calendars', index: 'tenant_name', fields: ['tenantId', 'name'] },
  'calendarStore.findByNames': { collection: 'calendars', index: 'tenant_name', fields: ['tenantId', 'name'] },
  'calendarStore.insert': { collection: 'calendars', index: 'tenant_name', fields: ['tenantId', 'name'] },
  'calendarStore.jobsNaming': { collection: 'jobs', index: 'tenant_calendar_names', fields: ['tenantId', 'calendarNames'] },
  'calendarStore.list': { collection: 'calendars', index: 'tenant_created', fields: ['tenantId', 'createdAt'] },
  'calendarStore.update': { collection: 'calendars', index: 'tenant_name', fields: ['tenantId', 'name'] },
  'executionStore.cancelWaiting': { collection: 'executions', index: 'tenant_job_scheduled', fields: ['tenantId', 'jobId'] },
  'executionStore.countByStatus': { collection: 'executions', index: 'tenant_scheduled', fields: ['tenantId', 'scheduledFor'] },
  'executionStore.findById': { collection: 'executions', index: '_id', fields: ['_id'] },
  'executionStore.findByIds': { collection: 'executions', index: '_id', fields: ['_id'] },
  'executionStore.insert': { collection: 'executions', index: 'occurrence', fields: ['tenantId', 'occurrenceKey'] },
  'executionStore.insertOccurrences': { collection: 'executions', index: 'occurrence', fields: ['tenantId', 'occurrenceKey'] },
  'executionStore.existingOccurrences': { collection: 'executions', index: 'occurrence', fields: ['tenantId', 'occurrenceKey'] },
  'executionStore.list': { collection: 'executions', index: 'tenant_scheduled', fields: ['tenantId', 'scheduledFor'] },
  'executionStore.list(jobId)': { collection: 'executions', index: 'tenant_job_scheduled', fields: ['tenantId', 'jobId', 'scheduledFor'] },
  // A filter by label or job external id, resolved to its jobs' ids (jobStore.idsMatching): one $in, merged by scheduledFor.
  'executionStore.list(jobIds)': { collection: 'executions', index: 'tenant_job_scheduled', fields: ['tenantId', 'jobId', 'scheduledFor'] },
  'executionStore.newestStartedOfJobs': {
    collection: 'executions',
    index: 'tenant_job_scheduled',
    fields: ['tenantId', 'jobId', 'scheduledFor'],
  },
  'executionStore.requeueForRetry': { collection: 'executions', index: '_id', fields: ['_id'] },
  'executionStore.reviveCancelled': { collection: 'executions', index: 'tenant_job_scheduled', fields: ['tenantId', 'jobId'] },
  'executionStore.rewriteSkips': { collection: 'executions', index: '_id', fields: ['_id'] },
  // A bulk operation's filter always has statuses (the ones its kind applies to): often one, an equality.
  'executionStore.snapshot': { collection: 'executions', index: 'tenant_status_finished', fields: ['tenantId', 'status', 'finishedAt'] },
  'executionStore.skipsReaching': { collection: 'executions', index: 'tenant_job_scheduled', fields: ['tenantId', 'jobId'] },
  'executionStore.timings': { collection: 'executions', index: 'tenant_scheduled', fields: ['tenantId', 'scheduledFor'] },
  'executionStore.startLags': { collection: 'executions', index: 'tenant_scheduled', fields: ['tenantId', 'scheduledFor'] },
  'jobStore.count': { collection: 'jobs', index: 'tenant_created', fields: ['tenantId'] },
  'jobStore.countAll': { collection: 'jobs', index: 'tenant_created', fields: ['tenantId'] },
  'jobStore.deleteById': { collection: 'jobs', index: '_id', fields: ['_id'] },
  'jobStore.findById': { collection: 'jobs', index: '_id', fields: ['_id'] },
  'jobStore.findByIds': { collection: 'jobs', index: '_id', fields: ['_id'] },
  'jobStore.findByExternalId': { collection: 'jobs', index: 'tenant_external', fields: ['tenantId', 'externalKey'] },
  'jobStore.findByIdempotencyKey': { collection: 'jobs', index: 'tenant_idempotency', fields: ['tenantId', 'idempotencyKey'] },
  // The first label is the equality (also what FerretDB pushes down), the others are checked over its rows.
  'jobStore.idsMatching': { collection: 'jobs', index: 'tenant_labels', fields: ['tenantId', 'labelPairs'] },
  'jobStore.idsMatching(externalId)': { collection: 'jobs', index: 'tenant_external', fields: ['tenantId', 'externalKey'] },
  'jobStore.flowControlKeys': { collection: 'jobs', index: 'tenant_created', fields: ['tenantId'] },
  'jobStore.insert': { collection: 'jobs', index: 'tenant_idempotency', fields: ['tenantId', 'idempotencyKey'] },
  'jobStore.insert(externalId)': { collection: 'jobs', index: 'tenant_external', fields: ['tenantId', 'externalKey'] },
  'jobStore.insertMany': { collection: 'jobs', index: 'tenant_idempotency', fields: ['tenantId', 'idempotencyKey'] },
  'jobStore.list': { collection: 'jobs', index: 'tenant_created', fields: ['tenantId', 'createdAt'] },
  'jobStore.list(namePrefix)': { collection: 'jobs', index: 'tenant_name', fields: ['tenantId', 'nameLower'] },
  'jobStore.list(labels)': { collection: 'jobs', index: 'tenant_labels', fields: ['tenantId', 'labelPairs', 'createdAt'] },
  'jobStore.list(externalId)': { collection: 'jobs', index: 'tenant_external', fields: ['tenantId', 'externalKey'] },
  'jobStore.updateIfVersion': { collection: 'jobs', index: '_id', fields: ['_id'] },
  'retentionStore.purgeChanges': { collection: 'changes', index: 'tenant_at', fields: ['tenantId', 'at'] },
  'retentionStore.purgeAlerts': { collection: 'alerts', index: 'tenant_raised', fields: ['tenantId', 'raisedAt'] },
  'retentionStore.purgeBulkOperations': { collection: 'bulkOperations', index: 'tenant_operation', fields: ['tenantId'] },
  'retentionStore.purgeBatch': { collection: 'executions', index: 'tenant_status_finished', fields: ['tenantId', 'status', 'finishedAt'] },
  'runStore.endUnstarted': { collection: 'executions', index: '_id', fields: ['_id'] },
  'runStore.findJob': { collection: 'jobs', index: '_id', fields: ['_id'] },
  'runStore.findPayload': { collection: 'executions', index: '_id', fields: ['_id'] },
  'runStore.findRunnable': { collection: 'executions', index: '_id', fields: ['_id'] },
  'runStore.writeJobRuns': { collection: 'jobs', index: '_id', fields: ['_id'] },
  'runStore.recordCrash': { collection: 'executions', index: '_id', fields: ['_id'] },
  'schedulerStore.activeCursors': { collection: 'jobs', index: 'due', fields: ['status'] },
  'schedulerStore.advanceJobs': { collection: 'jobs', index: '_id', fields: ['_id'] },
  'schedulerStore.cancelWaiting': { collection: 'executions', index: '_id', fields: ['_id'] },
  // SCHEDULED/QUEUED by scheduledFor; RETRYING and RUNNING by status, then filtered.
  'schedulerStore.findAny': { collection: 'executions', index: 'reconcile', fields: ['status', 'scheduledFor'] },
  'schedulerStore.findJobsByIds': { collection: 'jobs', index: '_id', fields: ['_id'] },
  'schedulerStore.insertExecutions': { collection: 'executions', index: 'occurrence', fields: ['tenantId', 'occurrenceKey'] },
  'schedulerStore.findOccurrences': { collection: 'executions', index: 'occurrence', fields: ['tenantId', 'occurrenceKey'] },
  'schedulerStore.jobStates': { collection: 'jobs', index: '_id', fields: ['_id'] },
  'schedulerStore.markQueued': { collection: 'executions', index: '_id', fields: ['_id'] },
  'schedulerStore.rewriteSkips': { collection: 'executions', index: '_id', fields: ['_id'] },
  'tenantStore.ensure': { collection: 'tenants', index: '_id', fields: ['_id'] },
  'tenantStore.rotateWebhookSecret': { collection: 'tenants', index: '_id', fields: ['_id'] },
  'tenantStore.revokePreviousWebhookSecret': { collection: 'tenants', index: '_id', fields: ['_id'] },
  'tenantStore.retentions': { exempt: 'reads every tenant (the purge); one document per tenant' },
};

/** `file.method` of every method in src/store that reaches a collection (`this.c.`). */
function storeQueries(): string[] {
  const dir = path.resolve('src/store');
  const found = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    let method: string | null = null;
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      const m = /^ {2}(?:private )?(?:async )?\*?([a-zA-Z]+)\(/.exec(line);
      if (m) method = m[1];
      if (method && line.includes('this.c.')) {
        found.add(`${file.replace(/\.ts$/, '')}.${method}`);
        method = null;
      }
    }
  }
  return [...found].sort();
}

describe('index coverage', () => {
  it('lists every store query', () => {
    const listed = new Set(Object.keys(QUERIES).map((k) => k.replace(/\(.*\)$/, '')));
    expect(storeQueries().filter((q) => !listed.has(q))).toEqual([]);
    expect([...listed].filter((q) => !storeQueries().includes(q))).toEqual([]);
  });

  it.each(
    Object.entries(QUERIES).filter(([, q]) => !('exempt' in q)) as [
      string,
      { collection: keyof typeof INDEXES | 'tenants'; index: string; fields: string[] },
    ][],
  )('%s is served by an index whose key starts with the fields it leads with', (_name, q) => {
    if (q.index === '_id') return expect(q.fields).toEqual(['_id']);
    const index = (INDEXES[q.collection as keyof typeof INDEXES] ?? []).find((i) => i.name === q.index);
    expect(index).toBeDefined();
    expect(Object.keys(index!.key).slice(0, q.fields.length)).toEqual(q.fields);
  });

  it('has no index that serves nothing', () => {
    const used = new Set(Object.values(QUERIES).flatMap((q) => ('exempt' in q ? [] : [`${q.collection}.${q.index}`])));
    const unused = Object.entries(INDEXES)
      .flatMap(([collection, list]) => list.map((i) => `${collection}.${i.name}`))
      .filter((n) => !used.has(n));
    expect(unused).toEqual([]);
  });
});
