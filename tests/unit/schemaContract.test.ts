// Covers: src/resolvers/index.ts, src/schema/apiKey.type.ts, src/schema/connection.args.ts, src/schema/enums.ts,
// src/schema/execution.input.ts, src/schema/execution.type.ts, src/schema/job.input.ts, src/schema/job.type.ts, src/schema/node.type.ts,
// src/schema/pageInfo.type.ts, src/schema/payload.type.ts, src/schema/retryPolicy.input.ts, src/schema/retryPolicy.type.ts,
// src/schema/schedule.input.ts, src/schema/schedule.type.ts, src/schema/target.input.ts, src/schema/viewer.type.ts,
// src/schema/webhookSecretRotation.type.ts
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { printSchema } from 'graphql';
import { kairosSchema } from '../../src/api/buildSchema.js';
import { contractDiff } from '../support/contractDiff.js';

const root = process.cwd();

/**
 * Contract descriptions that Kairos words differently because the contract's wording is wrong about
 * what Kairos does, with why; every other contract description is printed as it is.
 */
const CORRECTED_DESCRIPTIONS: Record<string, string> = {
  'ExecutionStatus.SKIPPED': 'the misfire policy records missed occurrences as SKIPPED too, not only the overlap policy',
  'input UpdateJobInput': 'a schedule change cancels QUEUED executions too, not only not-yet-queued ones',
  'Execution.reason': "occurrences past the tenant's budget of scheduled runs per minute are SKIPPED too",
};

describe('the printed schema', () => {
  it('contains every element of the first public contract, with its descriptions (but the corrected ones)', async () => {
    const contract = readFileSync(path.resolve(root, 'tests/support/contract.graphql'), 'utf8');
    const problems = contractDiff(contract, printSchema(await kairosSchema()), { descriptions: true });
    const isCorrection = (problem: string) =>
      Object.keys(CORRECTED_DESCRIPTIONS).some((what) => problem.startsWith(`${what}: description `));
    expect(problems.filter((p) => !isCorrection(p))).toEqual([]);
    // A correction the contract has caught up with (or that was undone) is to be removed from the list.
    expect(
      problems
        .filter(isCorrection)
        .map((p) => p.slice(0, p.indexOf(': ')))
        .sort(),
    ).toEqual(Object.keys(CORRECTED_DESCRIPTIONS).sort());
  });

  it('matches schema.graphql at the repository root (run `npm run print-schema` after changing the API)', async () => {
    const committed = readFileSync(path.resolve(root, 'schema.graphql'), 'utf8');
    expect(committed).toBe(printSchema(await kairosSchema()) + '\n');
  });
});
