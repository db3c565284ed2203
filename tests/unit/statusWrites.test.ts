import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EXECUTION_STATUSES } from '../../src/domain/execution.js';

const SRC = join(process.cwd(), 'src');

/**
 * The execution state machine has one home: src/transitions/ performs every status change (the
 * compare-and-set through the store) and builds and publishes its event; src/domain/ holds the pure
 * rules and src/schema/ registers the enum. Any other file reads statuses, and receives the ones it
 * writes or filters on from a transition.
 */
const HOMES = ['transitions/', 'domain/', 'schema/'];

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const STATUS = `'(?:${EXECUTION_STATUSES.join('|')})'`;

const RULES: [string, RegExp][] = [
  // `status: 'QUEUED'`, `statuses: ['SCHEDULED', ...]`: a status set, inserted or filtered on.
  ['writes a status', new RegExp(`\\bstatus(?:es)?\\??\\s*:\\s*(?:\\[\\s*)?${STATUS}`)],
  ['builds or publishes a status event', /\b(statusEvent|publishStatusEvents|withExecution|withAttemptEnd)\(/],
];

/** Each line of `source` that breaks a rule, as `what: line`. */
function offences(source: string): string[] {
  return source.split('\n').flatMap((line) => RULES.filter(([, pattern]) => pattern.test(line)).map(([what]) => `${what}: ${line.trim()}`));
}

describe('execution statuses are written only by src/transitions', () => {
  const outside = sourcesUnder(SRC).filter((f) => !HOMES.some((home) => relative(SRC, f).startsWith(home)));

  it('finds the sources', () => {
    expect(outside.length).toBeGreaterThan(100);
  });

  it('no other file writes a status or builds an event', () => {
    const found = outside.flatMap((f) => offences(readFileSync(f, 'utf8')).map((o) => `${relative(SRC, f)}: ${o}`));
    expect(found).toEqual([]);
  });

  it('would catch a status written elsewhere (the check is not vacuous)', () => {
    expect(offences("await c.updateOne({ _id }, { $set: { status: 'RUNNING' } });")).toHaveLength(1);
    expect(offences("cancel(deps, id, { statuses: ['SCHEDULED', 'QUEUED'] });")).toHaveLength(1);
    expect(offences('await publishStatusEvents(bus, logger, [statusEvent(e, null, to, now)]);')).toHaveLength(1);
    expect(offences("if (found.status === 'RUNNING') return null;")).toEqual([]);
    expect(offences("metrics.executionFinished('FAILED', trigger, tenantId);")).toEqual([]);
  });
});

/**
 * The store methods that change an execution's status: the compare-and-sets the transitions perform
 * through the store. Outside src/store and src/transitions, only the two ports a worker hands the
 * transitions call one: the start writer that defers or batches the start transition's own write
 * (deferredClaims.ts), and the wrapper that retries the end transition's write while MongoDB is
 * unreachable (recordEnd.ts).
 */
const STATUS_CHANGES: RegExp[] = [
  /\bexecutions\.insert\(/,
  /\.(cancelWaiting|requeueForRetry|reviveCancelled|insertExecutions|markQueued|recordCrash|endUnstarted)\(/,
  /\b(runStore|store)\.(claim|endAttempt)\(/,
];
const WRITE_PORTS = ['workers/deferredClaims.ts', 'workers/recordEnd.ts'];

const statusChanges = (source: string) => source.split('\n').filter((line) => STATUS_CHANGES.some((p) => p.test(line)));

describe("the store's status changes are made only by src/transitions", () => {
  const callers = sourcesUnder(SRC).filter((f) => !['store/', 'transitions/'].some((home) => relative(SRC, f).startsWith(home)));

  it('no other file calls a status-changing store method', () => {
    const found = callers
      .filter((f) => !WRITE_PORTS.includes(relative(SRC, f)))
      .flatMap((f) => statusChanges(readFileSync(f, 'utf8')).map((line) => `${relative(SRC, f)}: ${line.trim()}`));
    expect(found).toEqual([]);
  });

  it('the write ports still make the writes they are allowed to (the exception is not stale)', () => {
    for (const port of WRITE_PORTS) expect(statusChanges(readFileSync(join(SRC, port), 'utf8')).length).toBeGreaterThan(0);
  });

  it('would catch a status change made elsewhere (the check is not vacuous)', () => {
    expect(statusChanges('await deps.executions.insert({ ...fresh });')).toHaveLength(1);
    expect(statusChanges('await store.cancelWaiting(selection, to, reason, now);')).toHaveLength(1);
    expect(statusChanges('const { ended } = await deps.runStore.endAttempt(request);')).toHaveLength(1);
    expect(statusChanges('const job = await deps.jobs.insert(doc);')).toEqual([]);
  });
});
