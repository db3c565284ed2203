import type { ObjectId } from 'mongodb';
import type { RoleName } from './role.js';

/*
 * The change history: one record per API operation that changed something of a tenant (a job, an
 * execution by hand, a bulk operation, an API key, the webhook secret), saying who, when and what.
 * What the scheduler and the workers do is not here: that is the executions' own history.
 */

/** What was done; registered as the GraphQL enum `ChangeAction`. A new mutation adds its value here. */
export const CHANGE_ACTIONS = [
  'CREATE_JOB',
  'UPDATE_JOB',
  'PAUSE_JOB',
  'RESUME_JOB',
  'DELETE_JOB',
  'TRIGGER_JOB',
  'RETRY_EXECUTION',
  'CANCEL_EXECUTION',
  'RETRY_EXECUTIONS',
  'CANCEL_EXECUTIONS',
  'CREATE_API_KEY',
  'REVOKE_API_KEY',
  'ROTATE_WEBHOOK_SECRET',
  'REVOKE_PREVIOUS_WEBHOOK_SECRET',
  'CREATE_CALENDAR',
  'UPDATE_CALENDAR',
  'DELETE_CALENDAR',
  'BACKFILL_JOB',
  'CREATE_ALERT_CHANNEL',
  'DELETE_ALERT_CHANNEL',
  'CREATE_ALERT_RULE',
  'DELETE_ALERT_RULE',
] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

/** The kind of object a change was made to; registered as the GraphQL enum `ChangeTargetType`. */
export const CHANGE_TARGET_TYPES = [
  'JOB',
  'EXECUTION',
  'BULK_OPERATION',
  'API_KEY',
  'TENANT',
  'CALENDAR',
  'ALERT_CHANNEL',
  'ALERT_RULE',
] as const;
export type ChangeTargetType = (typeof CHANGE_TARGET_TYPES)[number];

/**
 * Changes to these objects are read by ADMINs only, as the objects themselves are (apiKeys, the
 * webhook secret, alert channels, whose URL may hold the receiver's credentials): a VIEWER or MEMBER
 * reading the tenant's history does not see them.
 */
export const ADMIN_ONLY_TARGETS: readonly ChangeTargetType[] = ['API_KEY', 'TENANT', 'ALERT_CHANNEL'];

/** Who made a change: from the request's verified credential, never from an argument. */
export interface ChangeActor {
  /** The JWT's subject, or `apiKey:<id>` for an API key. */
  subject: string;
  /** The global id of the API key used; null for a JWT. */
  apiKeyId: string | null;
  /** The caller's role at the time. */
  role: RoleName;
}

/** One field's value before and after, as JSON, secrets replaced by REDACTED. */
export interface FieldChange {
  field: string;
  /** null: the field was absent or null (a created object has only `after`). */
  before: unknown;
  /** null: the field is absent or null now (a deleted object has only `before`). */
  after: unknown;
  /** True when a secret inside the value was replaced: the field changed even when before and after read alike. */
  redacted: boolean;
}

/** A change as an operation hands it to the recorder (see changes/changeLog.ts). */
export interface ChangeEntry {
  action: ChangeAction;
  /** The object changed: its type and global id. */
  target: { type: ChangeTargetType; id: string };
  /** The job the change concerns, when one does (Job.changes lists it); null for a tenant-wide one. */
  jobId: ObjectId | null;
  /** The object's recorded fields before (null: it did not exist) and after (null: it was deleted). */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /** What the operation was asked to do, where that is not a field of the object (a bulk operation's filter). */
  details?: Record<string, unknown> | null;
  /** The operation's `now`. */
  at: Date;
}

/** A field change as stored: the values as JSON text, so that keys like `$set` or `a.b` in a payload are never interpreted. */
export interface StoredFieldChange {
  field: string;
  beforeJson: string | null;
  afterJson: string | null;
  redacted: boolean;
}

/** The `changes` collection's document. Purged with the tenant's executions (executionRetentionDays, by `at`). */
export interface ChangeDoc {
  _id: ObjectId;
  tenantId: string;
  at: Date;
  action: ChangeAction;
  actor: ChangeActor;
  targetType: ChangeTargetType;
  /** The target's global id. */
  targetId: string;
  /** See ChangeEntry.jobId; kept after the job is deleted. */
  jobId: ObjectId | null;
  /** Only the fields that changed. */
  fields: StoredFieldChange[];
  /** JSON text; null when none. */
  detailsJson: string | null;
  /** Whether only ADMINs read it (ADMIN_ONLY_TARGETS); stored, so that the others' reads filter by equality. */
  adminOnly: boolean;
}
