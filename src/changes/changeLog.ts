import { ObjectId } from 'mongodb';
import { ADMIN_ONLY_TARGETS, type ChangeActor, type ChangeDoc, type ChangeEntry } from '../domain/change.js';
import { changedFields } from '../domain/changeDiff.js';
import type { Identity } from '../domain/identity.js';
import type { ChangeStore } from '../store/changeStore.js';
import { errorMessage, type Logger } from '../logger.js';

/**
 * Where an operation records what it changed: `changes.record({ action, target, jobId, before, after, at })`.
 * Every mutation that changes a tenant's data calls it once, after its effect is durable, and only
 * when something changed (a repeated pause or an idempotent create records nothing).
 */
export interface ChangeRecorder {
  record(entry: ChangeEntry): Promise<void>;
}

/**
 * The recorder of one request: bound to the caller's tenant (its store) and to who the caller is (its
 * verified identity), so an operation can neither record for another tenant nor name another actor.
 *
 * Recording comes after the effect: a record says what happened, not what was attempted (a refused
 * update records nothing), and it never fails the mutation, whose effect has landed and which a client
 * would otherwise retry. A record that cannot be written (MongoDB unreachable just then) is logged at
 * error level with what it would have said (secrets redacted), and is lost; so is one whose api
 * process dies between the effect and the record. The history is an account for people, not a ledger
 * the system reads back.
 */
export class ChangeLog implements ChangeRecorder {
  constructor(
    private readonly store: Pick<ChangeStore, 'insert'>,
    private readonly actor: ChangeActor,
    private readonly logger: Logger,
  ) {}

  async record(entry: ChangeEntry): Promise<void> {
    const doc = changeDoc(entry, this.actor);
    try {
      await this.store.insert(doc);
    } catch (error) {
      this.logger.error('could not record a change', {
        error: errorMessage(error),
        action: doc.action,
        target: doc.targetId,
        actor: doc.actor.subject,
        fields: doc.fields.map((f) => f.field),
      });
    }
  }
}

/** The actor of a request, from its identity. */
export function actorOf(identity: Identity): ChangeActor {
  return { subject: identity.subject, apiKeyId: identity.apiKeyId ?? null, role: identity.role };
}

/** The document recording `entry` by `actor`: only the changed fields, secrets redacted, values as JSON text. */
export function changeDoc(entry: ChangeEntry, actor: ChangeActor): Omit<ChangeDoc, 'tenantId'> {
  return {
    _id: new ObjectId(),
    at: entry.at,
    action: entry.action,
    actor,
    targetType: entry.target.type,
    targetId: entry.target.id,
    jobId: entry.jobId,
    fields: changedFields(entry.before, entry.after).map(({ field, before, after, redacted }) => ({
      field,
      beforeJson: before === null ? null : JSON.stringify(before),
      afterJson: after === null ? null : JSON.stringify(after),
      redacted,
    })),
    detailsJson: entry.details ? JSON.stringify(changedFields(null, entry.details).reduce(detailsObject, {})) : null,
    adminOnly: ADMIN_ONLY_TARGETS.includes(entry.target.type),
  };
}

/** Details go through the same JSON conversion and redaction as fields (a filter's dates, a secret in a payload's key). */
function detailsObject(acc: Record<string, unknown>, change: { field: string; after: unknown }): Record<string, unknown> {
  return { ...acc, [change.field]: change.after };
}
