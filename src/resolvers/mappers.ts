import type { BulkOperationDoc } from '../domain/bulkOperation.js';
import type { BulkOperation } from '../schema/bulkOperation.type.js';
import type { ExecutionDoc } from '../domain/execution.js';
import type { JobDoc } from '../domain/job.js';
import type { CalendarDoc } from '../domain/calendar.js';
import type { Exclusion as ExclusionValue } from '../domain/exclusion.js';
import type { Calendar } from '../schema/calendar.type.js';
import { ExclusionKind, type Exclusion } from '../schema/exclusion.type.js';
import { labelsOf } from '../domain/labels.js';
import { toGlobalId } from '../ids/globalId.js';
import type { Execution } from '../schema/execution.type.js';
import type { Job } from '../schema/job.type.js';
import type { ApiKey } from '../schema/apiKey.type.js';
import type { ApiKeyRecord } from '../store/apiKeyStore.js';
import type { TenantDoc } from '../domain/tenant.js';
import { previousSecretExpiresAt } from '../domain/webhookSecretRotation.js';
import type { WebhookSecretRotation } from '../schema/webhookSecretRotation.type.js';

/** A Job as GraphQL sees it, keeping its document for field resolvers (`doc` is not a GraphQL field). */
export type JobNode = Job & { doc: JobDoc };
export type ExecutionNode = Execution & { doc: ExecutionDoc };

export function toJobNode(doc: JobDoc): JobNode {
  const target =
    doc.target.kind === 'HTTP'
      ? { __typename: 'HttpTarget' as const, url: doc.target.url, method: doc.target.method, headers: doc.target.headers }
      : { __typename: 'HandlerTarget' as const, handler: doc.target.handler };
  return {
    __typename: 'Job',
    doc,
    id: toGlobalId('Job', doc._id),
    name: doc.name,
    description: doc.description,
    schedule: doc.schedule,
    target,
    payload: doc.payloadJson === null ? null : JSON.parse(doc.payloadJson),
    workload: doc.workload,
    timeoutSeconds: doc.timeoutSeconds,
    retryPolicy: { ...doc.retryPolicy, nonRetryableStatuses: doc.retryPolicy.nonRetryableStatuses ?? null },
    overlapPolicy: doc.overlapPolicy,
    misfirePolicy: doc.misfirePolicy,
    flowControl: doc.flowControl ?? null,
    exclusions: (doc.exclusions ?? []).map(toExclusion),
    labels: labelsOf(doc.labelPairs),
    externalId: doc.externalId ?? null,
    status: doc.status,
    lastRunAt: doc.lastRunAt,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export function toExecutionNode(doc: ExecutionDoc): ExecutionNode {
  const firstStart = doc.attempts[0]?.startedAt ?? doc.startedAt;
  return {
    __typename: 'Execution',
    doc,
    id: toGlobalId('Execution', doc._id),
    jobId: toGlobalId('Job', doc.jobId),
    status: doc.status,
    trigger: doc.trigger,
    scheduledFor: doc.scheduledFor,
    queuedAt: doc.queuedAt,
    startedAt: doc.startedAt,
    finishedAt: doc.finishedAt,
    durationMs: doc.finishedAt && doc.startedAt ? doc.finishedAt.getTime() - doc.startedAt.getTime() : null,
    startLagMs: firstStart ? firstStart.getTime() - doc.scheduledFor.getTime() : null,
    attempt: doc.attempt,
    maxAttempts: doc.maxAttempts,
    nextAttemptAt: doc.nextAttemptAt,
    attempts: doc.attempts,
    error: doc.error,
    reason: doc.reason,
    skippedCount: doc.skippedCount ?? null,
    skippedUntil: doc.skippedUntil ?? null,
    result: doc.resultJson === null ? null : JSON.parse(doc.resultJson),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export function toApiKey(record: ApiKeyRecord): ApiKey {
  return {
    id: toGlobalId('ApiKey', record._id),
    name: record.name,
    role: record.role,
    prefix: record.prefix,
    createdAt: record.createdAt,
    lastUsedAt: record.lastUsedAt,
  };
}

/** The tenant's signing state at `now`: an expired previous secret reads as none. */
export function toWebhookSecretRotation(tenant: TenantDoc, now: Date): WebhookSecretRotation {
  return { previousSecretExpiresAt: previousSecretExpiresAt(tenant, now), rotatedAt: tenant.webhookSecretRotatedAt ?? null };
}

export function toBulkOperationNode(doc: BulkOperationDoc): BulkOperation {
  return {
    __typename: 'BulkOperation',
    id: toGlobalId('BulkOperation', doc._id),
    operationId: doc.operationId,
    kind: doc.kind,
    status: doc.state,
    reason: doc.reason,
    total: doc.total,
    done: doc.done,
    failed: doc.failed,
    errors: doc.errors.map((e) => ({ executionId: toGlobalId('Execution', e.executionId), message: e.message })),
    createdAt: doc.createdAt,
    finishedAt: doc.finishedAt,
  };
}

export function toExclusion(exclusion: ExclusionValue): Exclusion {
  return { ...exclusion, kind: ExclusionKind[exclusion.kind] };
}

export function toCalendar(doc: CalendarDoc): Calendar {
  return {
    name: doc.name,
    description: doc.description,
    windows: doc.windows.map(toExclusion),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}
