// Covers: src/domain/changeDiff.ts, src/domain/recordedFields.ts, src/changes/changeLog.ts
import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { REDACTED, asJson, changedFields, redact } from '../../src/domain/changeDiff.js';
import { jobChangeEntry, jobFields } from '../../src/domain/recordedFields.js';
import type { ChangeDoc } from '../../src/domain/change.js';
import { ChangeLog, actorOf, changeDoc } from '../../src/changes/changeLog.js';
import { createLogger } from '../../src/logger.js';
import { jobDoc } from '../support/fixtures.js';

const AT = new Date('2030-01-02T03:04:05.000Z');
const LATER = new Date('2030-01-02T04:00:00.000Z');
const ACTOR = { subject: 'alice', apiKeyId: null, role: 'MEMBER' as const };

describe('changedFields', () => {
  it('lists only the fields that differ, with their values before and after', () => {
    expect(
      changedFields({ name: 'a', timeoutSeconds: 60, workload: 'IO_BOUND' }, { name: 'b', timeoutSeconds: 60, workload: 'CPU_BOUND' }),
    ).toEqual([
      { field: 'name', before: 'a', after: 'b', redacted: false },
      { field: 'workload', before: 'IO_BOUND', after: 'CPU_BOUND', redacted: false },
    ]);
  });

  it('compares nested values deeply and shows them whole', () => {
    const before = { retryPolicy: { maxAttempts: 3, initialBackoffSeconds: 1 } };
    expect(changedFields(before, { retryPolicy: { maxAttempts: 3, initialBackoffSeconds: 1 } })).toEqual([]);
    expect(changedFields(before, { retryPolicy: { maxAttempts: 5, initialBackoffSeconds: 1 } })).toEqual([
      {
        field: 'retryPolicy',
        before: { maxAttempts: 3, initialBackoffSeconds: 1 },
        after: { maxAttempts: 5, initialBackoffSeconds: 1 },
        redacted: false,
      },
    ]);
  });

  it('lists every field of a created object with before null, and of a deleted one with after null', () => {
    expect(changedFields(null, { name: 'a', description: null })).toEqual([{ field: 'name', before: null, after: 'a', redacted: false }]);
    expect(changedFields({ name: 'a' }, null)).toEqual([{ field: 'name', before: 'a', after: null, redacted: false }]);
  });

  it('takes a field absent, undefined and null as the same', () => {
    expect(changedFields({ flowControl: undefined }, { flowControl: null })).toEqual([]);
    expect(changedFields({}, { flowControl: null })).toEqual([]);
  });

  it('shows dates as ISO strings and compares them by instant', () => {
    expect(changedFields({ runAt: new Date(AT) }, { runAt: new Date(AT) })).toEqual([]);
    expect(changedFields({ runAt: AT }, { runAt: LATER })).toEqual([
      { field: 'runAt', before: '2030-01-02T03:04:05.000Z', after: '2030-01-02T04:00:00.000Z', redacted: false },
    ]);
  });

  it('never shows a secret, and still lists a field whose only change is a secret', () => {
    const target = (auth: string) => ({
      kind: 'HTTP',
      url: 'https://example.test/hook',
      method: 'POST',
      headers: [
        { name: 'Authorization', value: auth },
        { name: 'X-Team', value: 'ops' },
      ],
    });
    const changes = changedFields({ target: target('Bearer old-token') }, { target: target('Bearer new-token') });
    expect(changes).toEqual([
      {
        field: 'target',
        before: {
          ...target(REDACTED),
          headers: [
            { name: 'Authorization', value: REDACTED },
            { name: 'X-Team', value: REDACTED },
          ],
        },
        after: {
          ...target(REDACTED),
          headers: [
            { name: 'Authorization', value: REDACTED },
            { name: 'X-Team', value: REDACTED },
          ],
        },
        redacted: true,
      },
    ]);
    expect(JSON.stringify(changes)).not.toMatch(/token/);
    const rotation = changedFields(
      { webhookSecret: 'whsec_old', previousWebhookSecret: null },
      { webhookSecret: 'whsec_new', previousWebhookSecret: 'whsec_old' },
    );
    expect(rotation).toEqual([
      { field: 'webhookSecret', before: REDACTED, after: REDACTED, redacted: true },
      { field: 'previousWebhookSecret', before: null, after: REDACTED, redacted: true },
    ]);
  });

  it('is not fooled by an unchanged secret: a field that did not change is not listed', () => {
    expect(changedFields({ webhookSecret: 's', name: 'a' }, { webhookSecret: 's', name: 'b' })).toEqual([
      { field: 'name', before: 'a', after: 'b', redacted: false },
    ]);
  });
});

describe('redact and asJson', () => {
  it('redacts secret keys at any depth, and header values in any headers list', () => {
    expect(redact('channel', { url: 'https://x.test', secret: 'abc', nested: [{ signingSecret: 'def' }] })).toEqual([
      { url: 'https://x.test', secret: REDACTED, nested: [{ signingSecret: REDACTED }] },
      true,
    ]);
    expect(redact('target', { kind: 'HANDLER', handler: 'noop' })).toEqual([{ kind: 'HANDLER', handler: 'noop' }, false]);
    expect(redact('headers', [])).toEqual([[], false]);
  });

  it('makes ObjectIds hex and drops undefined fields', () => {
    const id = new ObjectId('64b000000000000000000001');
    expect(asJson({ id, gone: undefined, at: AT, list: [undefined] })).toEqual({
      id: '64b000000000000000000001',
      at: AT.toISOString(),
      list: [null],
    });
  });
});

describe("a job's recorded fields", () => {
  it('are its definition and status as the API names them, without the bookkeeping', () => {
    const job = jobDoc(AT, {
      payloadJson: '{"n":1}',
      flowControl: null,
      labelPairs: ['team=ops'],
      externalId: 'crm-1',
      externalKey: 'crm-1',
      exclusions: [],
      calendarNames: [],
      calendarWindows: {},
    });
    expect(Object.keys(jobFields(job)).sort()).toEqual(
      [
        'name',
        'description',
        'schedule',
        'target',
        'payload',
        'workload',
        'timeoutSeconds',
        'retryPolicy',
        'overlapPolicy',
        'misfirePolicy',
        'flowControl',
        'status',
        'labels',
        'externalId',
        'exclusions',
      ].sort(),
    );
    expect(jobFields(job).payload).toEqual({ n: 1 });
    expect(jobFields(job).labels).toEqual([{ key: 'team', value: 'ops' }]);
  });

  it('change on a pause in status only, not in the cursor, version or timestamps the pause writes too', () => {
    const before = jobDoc(AT);
    const after = { ...before, status: 'PAUSED' as const, scheduleCursor: null, version: 2, updatedAt: LATER, rescheduledAt: LATER };
    const entry = jobChangeEntry('PAUSE_JOB', before._id, 'Sm9i', before, after, LATER);
    expect(changedFields(entry.before, entry.after)).toEqual([{ field: 'status', before: 'ACTIVE', after: 'PAUSED', redacted: false }]);
    expect(entry).toMatchObject({ action: 'PAUSE_JOB', target: { type: 'JOB', id: 'Sm9i' }, jobId: before._id, at: LATER });
  });
});

describe('ChangeLog', () => {
  const job = jobDoc(AT, { name: 'nightly', payloadJson: '{"$set":{"a.b":1}}' });
  const entry = jobChangeEntry('CREATE_JOB', job._id, 'Sm9i', null, job, AT);

  it('stores the changed fields as JSON text (a payload key like $set is never a MongoDB operator) by the bound actor', async () => {
    const inserted: Omit<ChangeDoc, 'tenantId'>[] = [];
    const log = new ChangeLog(
      { insert: async (doc) => (inserted.push(doc), { ...doc, tenantId: 't1' }) },
      ACTOR,
      createLogger({}, 'silent'),
    );
    await log.record(entry);
    expect(inserted).toHaveLength(1);
    expect(inserted[0]).toMatchObject({
      at: AT,
      action: 'CREATE_JOB',
      actor: ACTOR,
      targetType: 'JOB',
      targetId: 'Sm9i',
      jobId: job._id,
      adminOnly: false,
    });
    expect(inserted[0].fields.find((f) => f.field === 'payload')).toEqual({
      field: 'payload',
      beforeJson: null,
      afterJson: '{"$set":{"a.b":1}}',
      redacted: false,
    });
  });

  it('never fails the mutation: a record that cannot be written is logged with what it would have said', async () => {
    const lines: string[] = [];
    const log = new ChangeLog(
      {
        insert: async () => {
          throw new Error('connection refused');
        },
      },
      ACTOR,
      createLogger({}, 'info', (line) => lines.push(line)),
    );
    await expect(log.record(entry)).resolves.toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 'error', msg: 'could not record a change', action: 'CREATE_JOB', actor: 'alice' });
  });

  it('marks the changes of API keys and of the tenant admin-only, and keeps details as redacted JSON', () => {
    const doc = changeDoc(
      {
        action: 'ROTATE_WEBHOOK_SECRET',
        target: { type: 'TENANT', id: 't1' },
        jobId: null,
        before: { webhookSecret: 'a' },
        after: { webhookSecret: 'b' },
        details: { gracePeriodSeconds: 60, secret: 'never' },
        at: AT,
      },
      ACTOR,
    );
    expect(doc.adminOnly).toBe(true);
    expect(doc.fields).toEqual([{ field: 'webhookSecret', beforeJson: `"${REDACTED}"`, afterJson: `"${REDACTED}"`, redacted: true }]);
    expect(JSON.parse(doc.detailsJson!)).toEqual({ gracePeriodSeconds: 60, secret: REDACTED });
  });

  it("takes the actor from the identity: an API key's id, or none for a JWT", () => {
    expect(actorOf({ tenantId: 't1', subject: 'alice', role: 'ADMIN' })).toEqual({ subject: 'alice', apiKeyId: null, role: 'ADMIN' });
    expect(actorOf({ tenantId: 't1', subject: 'apiKey:QXBp', role: 'VIEWER', apiKeyId: 'QXBp' })).toEqual({
      subject: 'apiKey:QXBp',
      apiKeyId: 'QXBp',
      role: 'VIEWER',
    });
  });
});
