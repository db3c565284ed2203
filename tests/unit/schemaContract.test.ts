import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { printSchema } from 'graphql';
import { kairosSchema } from '../../src/schema/buildSchema.js';
import { contractDiff } from '../support/contractDiff.js';

const root = process.cwd();

describe('the printed schema', () => {
  it('contains every element of the shared contract, with its descriptions', async () => {
    const contract = readFileSync(path.resolve(root, '../shared/api/schema.graphql'), 'utf8');
    expect(contractDiff(contract, printSchema(await kairosSchema()), { descriptions: true })).toEqual([]);
  });

  it('matches schema.graphql at the repository root (run `npm run print-schema` after changing the API)', async () => {
    const committed = readFileSync(path.resolve(root, 'schema.graphql'), 'utf8');
    expect(committed).toBe(printSchema(await kairosSchema()) + '\n');
  });
});
