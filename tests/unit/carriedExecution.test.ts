import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { newExecution } from '../../src/domain/execution.js';
import { carriedExecution } from '../../src/events/executionAsOf.js';
import { statusEvent, withExecution } from '../../src/transitions/statusEvents.js';

const now = new Date('2031-02-03T04:05:06.789Z');
const execution = (payloadJson: string | null) => ({
  ...newExecution(
    {
      tenantId: 't1',
      jobId: new ObjectId(),
      occurrenceKey: 'k',
      trigger: 'SCHEDULE',
      workload: 'IO_BOUND',
      scheduledFor: now,
      maxAttempts: 3,
      payloadJson,
    },
    now,
  ),
  status: 'QUEUED' as const,
  queuedAt: now,
});

describe('events carrying the execution their publisher wrote', () => {
  it('round-trips the document through the JSON the bus sends, ObjectIds and dates included', () => {
    const doc = execution('{"a":1}');
    const [event] = withExecution(doc, [statusEvent(doc, 'SCHEDULED', 'QUEUED', now)]);
    const received = JSON.parse(JSON.stringify(event)) as typeof event;
    const carried = carriedExecution(received);
    expect(carried).toEqual(doc);
    expect(carried?._id).toBeInstanceOf(ObjectId);
    expect(carried?.scheduledFor).toBeInstanceOf(Date);
    // Nothing is kept with the event object: an equal message parsed apart gives an equal document.
    expect(carriedExecution(JSON.parse(JSON.stringify(event)) as typeof event)).toEqual(carried);
  });

  it('leaves out a document over 8 KiB (a large manual payload): subscribers read that one', () => {
    const doc = execution(JSON.stringify({ blob: 'x'.repeat(9000) }));
    const events = withExecution(doc, [statusEvent(doc, null, 'SCHEDULED', now), statusEvent(doc, 'SCHEDULED', 'QUEUED', now)]);
    expect(events.map(carriedExecution)).toEqual([null, null]);
  });

  it('carries nothing on an event made without it', () => {
    expect(carriedExecution(statusEvent(execution(null), 'RUNNING', 'SUCCEEDED', now))).toBeNull();
  });
});
