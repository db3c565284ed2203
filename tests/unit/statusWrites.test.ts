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
