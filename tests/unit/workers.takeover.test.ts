import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { crashedFields } from '../../src/domain/attemptEnd.js';
import { newExecution, type ExecutionDoc, type ExecutionStatus } from '../../src/domain/execution.js';
import type { ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import { createLogger } from '../../src/logger.js';
import type { ClaimHolder } from '../../src/queue/attemptClaims.js';
import type { QueueEntry } from '../../src/queue/queueEntry.js';
import type { Started } from '../../src/workers/claimAttempt.js';
import { DeferredClaim } from '../../src/workers/deferredClaims.js';
import type { Run } from '../../src/workers/run.js';
import { readRun, takeOverAndRequeue, type TakeoverDeps } from '../../src/workers/takeover.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const NOW = new Date(T0.getTime() + 120_000);
const ID = '650000000000000000000001';

/** The execution in `status` with `attempt` attempts started (the last RUNNING when it is). */
function execution(status: ExecutionStatus, attempt: number, maxAttempts = 3): ExecutionDoc {
  const base = newExecution(
    {
      _id: new ObjectId(ID),
      tenantId: 'acme',
      jobId: new ObjectId('650000000000000000000002'),
      occurrenceKey: 'k',
      trigger: 'SCHEDULE',
      workload: 'IO_BOUND',
      scheduledFor: T0,
      maxAttempts,
    },
    T0,
  );
  const attempts = Array.from({ length: attempt }, (_, i) => ({
    number: i + 1,
    startedAt: T0,
    finishedAt: status === 'RUNNING' && i + 1 === attempt ? null : T0,
    outcome: status === 'RUNNING' && i + 1 === attempt ? null : ('FAILED' as const),
    error: null,
    httpStatus: null,
    workerId: 'gone',
  }));
  return { ...base, status, attempt, attempts };
}

interface Setup {
  /** The execution as MongoDB has it (null: finished, cancelled or gone). */
  found: ExecutionDoc | null;
  /** Who holds the claim of the attempt after the last started one. */
  holder?: ClaimHolder | null;
  /** Whether this delivery gets the one takeover of the lost attempt. */
  takeover?: boolean;
}

/** takeover.ts over fakes of its ports: a store that applies the takeover's fields as RunStore.recordCrash does. */
function setup(options: Setup) {
  const calls: string[] = [];
  const events: ExecutionEventMessage[] = [];
  const enqueued: QueueEntry[] = [];
  const lines: Record<string, unknown>[] = [];
  const deps: TakeoverDeps = {
    runStore: {
      findRunnable: async () => options.found,
      recordCrash: async (current, now, unwritten) => {
        calls.push(`crash attempt ${unwritten ? current.attempt + 1 : current.attempt}${unwritten ? ` of ${unwritten.workerId}` : ''}`);
        return { ...current, ...crashedFields(current, now, unwritten ?? null) };
      },
    },
    claims: {
      holder: async (_executionId, attempt) => {
        calls.push(`holder of ${attempt}`);
        return options.holder ?? null;
      },
      takeTakeover: async (_executionId, attempt) => {
        calls.push(`take takeover of ${attempt}`);
        return options.takeover ?? true;
      },
    },
    overlap: {
      release: async (_jobId, executionId) => {
        calls.push(`release job slot ${executionId}`);
        return null;
      },
    },
    queues: {
      enqueue: async (entries) => {
        enqueued.push(...entries);
      },
    },
    events: {
      publish: async (published) => {
        events.push(...published);
      },
    },
    metrics: { tookOver: () => undefined, attemptEnded: () => undefined, retried: () => undefined, executionFinished: () => undefined },
    clock: () => NOW,
    logger: createLogger({}, 'info', (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
    workerId: 'worker-1',
  };
  return { deps, calls, events, enqueued, lines };
}

const ordinary = { takeover: false };
const takeover = { takeover: true };

describe('readRun: the execution as MongoDB has it, after recording an attempt lost by a worker that is gone', () => {
  it('drops a finished or cancelled execution, and a RUNNING one on an ordinary (duplicate) delivery', async () => {
    expect(await readRun(setup({ found: null }).deps, ID, takeover)).toBeNull();
    const duplicate = setup({ found: execution('RUNNING', 1) });
    expect(await readRun(duplicate.deps, ID, ordinary)).toBeNull();
    expect(duplicate.calls).toEqual([]);
  });

  it('runs a waiting execution as read, its job to be read', async () => {
    const { deps, calls } = setup({ found: execution('QUEUED', 0) });
    expect(await readRun(deps, ID, ordinary)).toMatchObject({ executionId: ID, status: 'QUEUED', attempt: 0, job: null });
    expect(calls).toEqual(['holder of 1']);
  });

  it('on a takeover records the RUNNING attempt CRASHED once, and runs the next one', async () => {
    const { deps, calls, events, lines } = setup({ found: execution('RUNNING', 1) });
    expect(await readRun(deps, ID, takeover)).toMatchObject({ status: 'RETRYING', attempt: 1, nextAttemptAt: NOW, job: null });
    expect(calls).toEqual(['take takeover of 1', 'crash attempt 1']);
    expect(events[0]).toMatchObject({ previousStatus: 'RUNNING', status: 'RETRYING' });
    expect(lines).toEqual([expect.objectContaining({ msg: 'took over an execution whose worker disappeared', attempt: 1 })]);
  });

  it('leaves the lost attempt to the delivery that took its takeover', async () => {
    const { deps, calls } = setup({ found: execution('RUNNING', 1), takeover: false });
    expect(await readRun(deps, ID, takeover)).toBeNull();
    expect(calls).toEqual(['take takeover of 1']);
  });

  it("records a claim left behind past its deadline whatever delivery finds it, from the claim's holder", async () => {
    const holder = { workerId: 'w-gone', startedAt: T0, deadlineAt: new Date(T0.getTime() + 60_000) };
    const { deps, calls } = setup({ found: execution('QUEUED', 0), holder });
    expect(await readRun(deps, ID, ordinary)).toMatchObject({ status: 'RETRYING', attempt: 1 });
    expect(calls).toEqual(['holder of 1', 'take takeover of 1', 'crash attempt 1 of w-gone']);
  });

  it('leaves a claim not yet past its deadline to its holder on an ordinary delivery (it may still run)', async () => {
    const holder = { workerId: 'w-busy', startedAt: NOW, deadlineAt: new Date(NOW.getTime() + 1) };
    const { deps, calls } = setup({ found: execution('QUEUED', 0), holder });
    expect(await readRun(deps, ID, ordinary)).toMatchObject({ status: 'QUEUED', attempt: 0 });
    expect(calls).toEqual(['holder of 1']);
  });

  it('a lost last attempt fails the execution and frees the job slot it held', async () => {
    const { deps, calls, events } = setup({ found: execution('RUNNING', 3, 3) });
    expect(await readRun(deps, ID, takeover)).toBeNull();
    expect(calls).toEqual(['take takeover of 3', 'crash attempt 3', `release job slot ${ID}`]);
    expect(events[0]).toMatchObject({ status: 'FAILED' });
  });
});

describe("takeOverAndRequeue: this delivery's own attempt lost to a MongoDB or Redis failure", () => {
  const run = (status: ExecutionStatus, attempt: number): Run => ({ ...execution(status, attempt), executionId: ID, job: null });
  const started = (written: boolean): Started => ({
    number: 1,
    startedAt: T0,
    claim: new DeferredClaim(
      { claim: async () => ({ claimed: true }) },
      { id: new ObjectId(ID), from: { status: 'QUEUED', attempt: 0 }, workerId: 'worker-1', startedAt: T0, deadlineAfterMs: 1 },
      () => undefined,
      written,
    ),
  });

  it('records a written attempt CRASHED and queues the next one, due now', async () => {
    const { deps, calls, enqueued } = setup({ found: execution('RUNNING', 1) });
    await takeOverAndRequeue(deps, run('QUEUED', 0), started(true));
    expect(calls).toEqual(['take takeover of 1', 'crash attempt 1']);
    expect(enqueued).toEqual([expect.objectContaining({ id: `${ID}-r1`, dueAt: NOW })]);
  });

  it('records an unwritten one whole, as this worker started it', async () => {
    const { deps, calls, enqueued } = setup({ found: execution('QUEUED', 0) });
    await takeOverAndRequeue(deps, run('QUEUED', 0), started(false));
    expect(calls).toEqual(['take takeover of 1', 'crash attempt 1 of worker-1']);
    expect(enqueued).toHaveLength(1);
  });

  it('leaves an execution that moved on alone', async () => {
    const { deps, calls, enqueued } = setup({ found: execution('RUNNING', 2) });
    await takeOverAndRequeue(deps, run('QUEUED', 0), started(true));
    expect(calls).toEqual(['take takeover of 1']);
    expect(enqueued).toEqual([]);
  });

  it('says so when it cannot record it, and leaves it to the queue', async () => {
    const { deps, lines } = setup({ found: execution('RUNNING', 1) });
    deps.runStore.findRunnable = async () => {
      throw new Error('MongoDB unreachable');
    };
    await takeOverAndRequeue(deps, run('QUEUED', 0), started(true));
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'could not record a failed attempt; the queue will hand it out again', error: 'MongoDB unreachable' }),
    ]);
  });
});
