import { describe, expect, it } from '@jest/globals';
import { crashedFields } from '../../src/domain/attemptEnd.js';
import type { ExecutionDoc } from '../../src/domain/execution.js';
import type { ClaimHolder } from '../../src/queue/attemptClaims.js';
import { readRun, takeOverAndRequeue, type TakeoverDeps } from '../../src/workers/takeover.js';
import { afterT0, EXECUTION_ID as ID, queuedRun, T0, trackedExecution as execution } from '../support/executionFixtures.js';
import { attemptMetrics, enqueuedEntries, loggedLines, publishedEvents, startedAttempt } from '../support/workerFakes.js';

const NOW = afterT0(120_000);

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
  const { events, published } = publishedEvents();
  const { queues, enqueued } = enqueuedEntries();
  const { logger, lines } = loggedLines();
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
    queues,
    events,
    metrics: attemptMetrics().metrics,
    clock: () => NOW,
    logger,
    workerId: 'worker-1',
  };
  return { deps, calls, events: published, enqueued, lines };
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
    const { deps, calls, events } = setup({ found: execution('RUNNING', 3, { maxAttempts: 3 }) });
    expect(await readRun(deps, ID, takeover)).toBeNull();
    expect(calls).toEqual(['take takeover of 3', 'crash attempt 3', `release job slot ${ID}`]);
    expect(events[0]).toMatchObject({ status: 'FAILED' });
  });
});

describe("takeOverAndRequeue: this delivery's own attempt lost to a MongoDB or Redis failure", () => {
  const run = queuedRun();
  const started = (written: boolean) => startedAttempt(T0, written);

  it('records a written attempt CRASHED and queues the next one, due now', async () => {
    const { deps, calls, enqueued } = setup({ found: execution('RUNNING', 1) });
    await takeOverAndRequeue(deps, run, started(true));
    expect(calls).toEqual(['take takeover of 1', 'crash attempt 1']);
    expect(enqueued).toEqual([expect.objectContaining({ id: `${ID}-r1`, dueAt: NOW })]);
  });

  it('records an unwritten one whole, as this worker started it', async () => {
    const { deps, calls, enqueued } = setup({ found: execution('QUEUED', 0) });
    await takeOverAndRequeue(deps, run, started(false));
    expect(calls).toEqual(['take takeover of 1', 'crash attempt 1 of worker-1']);
    expect(enqueued).toHaveLength(1);
  });

  it('leaves an execution that moved on alone', async () => {
    const { deps, calls, enqueued } = setup({ found: execution('RUNNING', 2) });
    await takeOverAndRequeue(deps, run, started(true));
    expect(calls).toEqual(['take takeover of 1']);
    expect(enqueued).toEqual([]);
  });

  it('says so when it cannot record it, and leaves it to the queue', async () => {
    const { deps, lines } = setup({ found: execution('RUNNING', 1) });
    deps.runStore.findRunnable = async () => {
      throw new Error('MongoDB unreachable');
    };
    await takeOverAndRequeue(deps, run, started(true));
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'could not record a failed attempt; the queue will hand it out again', error: 'MongoDB unreachable' }),
    ]);
  });
});
