// Covers: src/domain/jobLimits.ts
import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { newExecution, type ExecutionDoc } from '../../src/domain/execution.js';
import type { JobDoc } from '../../src/domain/job.js';
import { FLOW_LIMITS } from '../../src/domain/flowControl.js';
import { LIMITS, parsePayload, parseTarget } from '../../src/jobs/parseJobInput.js';
import { INLINE_PAYLOAD_BYTES, MAX_ENTRY_DATA_BYTES, queueEntry, type QueueEntry } from '../../src/queue/queueEntry.js';
import { MAX_NON_RETRYABLE_STATUSES } from '../../src/domain/nonRetryableStatuses.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const PLAIN_TARGET = parseTarget({ http: { url: 'https://hooks.example.com/run' } }, new Set());

/** A payload whose JSON text is exactly `bytes` bytes: a string of `x`. */
function payloadOf(bytes: number): string {
  return parsePayload('x'.repeat(bytes - 2))!;
}

function job(payloadJson: string | null, target = PLAIN_TARGET): JobDoc {
  return {
    _id: new ObjectId(),
    version: 7,
    target,
    payloadJson,
    timeoutSeconds: LIMITS.timeoutSeconds,
    retryPolicy: {
      maxAttempts: 10,
      initialBackoffSeconds: 86_400,
      maxBackoffSeconds: 86_400,
      backoffMultiplier: 10,
      nonRetryableStatuses: Array.from({ length: MAX_NON_RETRYABLE_STATUSES }, (_, i) => 500 + i),
    },
    overlapPolicy: 'CANCEL_PREVIOUS',
    workload: 'IO_BOUND',
  } as JobDoc;
}

function execution(payloadJson: string | null, tenantId = 'tenant-a'): ExecutionDoc {
  const fresh = newExecution(
    {
      tenantId,
      jobId: new ObjectId(),
      occurrenceKey: 'manual:x',
      trigger: 'MANUAL',
      workload: 'IO_BOUND',
      scheduledFor: NOW,
      maxAttempts: 10,
      payloadJson,
    },
    NOW,
  );
  return { ...fresh, status: 'RETRYING', attempt: 9 };
}

/** What BullMQ stores as the entry's data. */
function dataBytes(entry: QueueEntry): number {
  return Buffer.byteLength(JSON.stringify(entry.message));
}

describe('queueEntry keeps payloads over the inline size out of the entry', () => {
  const max = payloadOf(LIMITS.payloadBytes);

  it("leaves out the job's payload over the inline size when it is the one sent: the worker reads it from the job", () => {
    const entry = queueEntry(execution(null), NOW, { kind: 'waiting' }, job(max));
    expect(entry.message.run).toMatchObject({ payloadJson: null, payloadOmitted: 'job' });
    expect(entry.message.job).toMatchObject({ payloadJson: null, target: PLAIN_TARGET, version: 7 });
    expect(dataBytes(entry)).toBeLessThan(1024);
  });

  it("leaves out an override over the inline size, and the job's payload it replaces: the worker reads the override", () => {
    const entry = queueEntry(execution(max), NOW, { kind: 'waiting' }, job(max));
    expect(entry.message.run).toMatchObject({ payloadJson: null, payloadOmitted: 'execution' });
    expect(entry.message.job).toMatchObject({ payloadJson: null, target: PLAIN_TARGET, version: 7 });
    // Before: both 256 KiB payloads travelled, 514 KiB an entry.
    expect(dataBytes(entry)).toBeLessThan(1024);
  });

  it('keeps a payload left out when a delivery that did not read it makes its entry again', () => {
    for (const omitted of ['execution', 'job'] as const) {
      const again = queueEntry({ ...execution(null), payloadOmitted: omitted }, NOW, { kind: 'waiting' }, job(null));
      expect(again.message.run).toMatchObject({ payloadJson: null, payloadOmitted: omitted });
      expect(again.message.job?.payloadJson).toBeNull();
    }
  });

  it('carries no job payload when the entry is made without the job: the worker reads the job whole', () => {
    const entry = queueEntry(execution(null), NOW);
    expect(entry.message.job).toBeUndefined();
    expect(entry.message.run?.payloadOmitted).toBeUndefined();
  });

  it('carries the payload that is sent when it is within the inline size, counted in UTF-8 bytes', () => {
    const inline = payloadOf(INLINE_PAYLOAD_BYTES);
    expect(queueEntry(execution(null), NOW, { kind: 'waiting' }, job(inline)).message.job?.payloadJson).toBe(inline);
    const override = queueEntry(execution(inline), NOW, { kind: 'waiting' }, job(inline)).message;
    expect(override.run).toMatchObject({ payloadJson: inline });
    expect(override.run?.payloadOmitted).toBeUndefined();
    expect(override.job?.payloadJson).toBeNull();
    // 2 049 characters of 'é' are 4 098 bytes with the quotes: over, though under 4 096 characters.
    const wide = parsePayload('é'.repeat((INLINE_PAYLOAD_BYTES - 2) / 2 + 1))!;
    expect(wide.length).toBeLessThan(INLINE_PAYLOAD_BYTES);
    expect(queueEntry(execution(wide), NOW, { kind: 'waiting' }, job(null)).message.run).toMatchObject({ payloadOmitted: 'execution' });
    const over = queueEntry(execution(null), NOW, { kind: 'waiting' }, job(payloadOf(INLINE_PAYLOAD_BYTES + 1))).message;
    expect(over.run).toMatchObject({ payloadOmitted: 'job' });
    expect(over.job?.payloadJson).toBeNull();
  });

  it('stays within MAX_ENTRY_DATA_BYTES at every input limit at once', () => {
    // The URL at its length in characters that percent-encoding makes longest (9 bytes each).
    const base = 'https://a.example/';
    const url = base + '\uffff'.repeat(LIMITS.urlLength - base.length);
    // 32 headers filling the names-and-values budget with values that take 2 bytes a character in the entry.
    const name = (i: number) => `X-H${String(i).padStart(2, '0')}`;
    const valueLength = LIMITS.headerBytes / LIMITS.headerCount - name(0).length;
    const headers = Array.from({ length: LIMITS.headerCount }, (_, i) => ({
      name: name(i),
      value: '\u00ff"'.repeat(valueLength / 2),
    }));
    const target = parseTarget({ http: { url, method: 'POST', headers } }, new Set(), true);
    // An inline override that escaping doubles: backslashes, each already escaped once in the JSON text.
    const override = parsePayload('\\'.repeat((INLINE_PAYLOAD_BYTES - 2) / 2))!;
    expect(Buffer.byteLength(override)).toBeLessThanOrEqual(INLINE_PAYLOAD_BYTES);
    // A flow-control key at its length, 3 bytes a character.
    const flowControl = { key: '\uffff'.repeat(FLOW_LIMITS.keyLength), keyFromTarget: false, maxConcurrent: 1000, maxPerMinute: 60_000 };
    const entry = queueEntry(execution(override, 't'.repeat(128)), NOW, { kind: 'waiting' }, { ...job(max, target), flowControl });
    expect(entry.message.run?.payloadJson).toBe(override);
    expect(entry.message.job?.target).toEqual(target);
    const bytes = dataBytes(entry);
    expect(bytes).toBeLessThanOrEqual(MAX_ENTRY_DATA_BYTES);
    // The bound is the sum of what each part can take, not a guess far above them.
    expect(bytes).toBeGreaterThan(MAX_ENTRY_DATA_BYTES * 0.9);
    expect(MAX_ENTRY_DATA_BYTES).toBe(60 * 1024 + 3 * FLOW_LIMITS.keyLength);
  });

  it('carries no payload on a takeover', () => {
    const entry = queueEntry(execution(payloadOf(100)), NOW, { kind: 'takeover' }, job(payloadOf(100)));
    expect(entry.message.run).toBeUndefined();
    expect(entry.message.job).toBeUndefined();
  });
});
