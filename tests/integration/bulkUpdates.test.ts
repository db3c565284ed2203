// Covers: src/store/attemptEnds.ts, src/store/attemptStarts.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, ObjectId, type Collection, type Db } from 'mongodb';
import { startLocalMongo, type LocalServer } from '../../tools/servers/localServers.js';
import { newExecution, type ExecutionDoc } from '../../src/domain/execution.js';
import { bulkUpdate } from '../../src/store/bulkUpdates.js';
import { RunStore } from '../../src/store/runStore.js';
import { POSTGRES_SERVER } from '../support/env.js';

/**
 * FerretDB 1.x holds a PostgreSQL connection for every update statement of a command until the
 * command ends (bulkUpdates.ts). Here a FerretDB of its own gets a pool of 8 PostgreSQL connections
 * and the driver 3: a 20-statement command would need 21 and hang FerretDB for good, so these
 * tests only finish if every statement goes as its own command.
 */
const PG_DB = `kairos_test_bulk_${process.pid}`;

function psql(sql: string): void {
  execFileSync('psql', [`${POSTGRES_SERVER}/postgres`, '-qc', sql], { stdio: 'pipe' });
}

function execution(tenantId: string): ExecutionDoc {
  const at = new Date('2030-01-01T00:00:00Z');
  return newExecution(
    {
      tenantId,
      jobId: new ObjectId(),
      occurrenceKey: new ObjectId().toHexString(),
      trigger: 'SCHEDULE',
      workload: 'IO_BOUND',
      scheduledFor: at,
      maxAttempts: 3,
    },
    at,
  );
}

describe('update statements on a FerretDB with a small PostgreSQL pool', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kairos-bulk-'));
  let server: LocalServer;
  let client: MongoClient;
  let db: Db;
  let executions: Collection<ExecutionDoc>;

  beforeAll(async () => {
    psql(`drop database if exists ${PG_DB} with (force)`);
    psql(`create database ${PG_DB}`);
    server = await startLocalMongo({ dataDir: dir, postgresUrl: `${POSTGRES_SERVER}/${PG_DB}?pool_max_conns=8` });
    client = await new MongoClient(server.url, { maxPoolSize: 3, serverSelectionTimeoutMS: 10_000 }).connect();
    db = client.db();
    executions = db.collection<ExecutionDoc>('executions');
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    psql(`drop database if exists ${PG_DB} with (force)`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies 60 statements one command each and counts what they matched and changed', async () => {
    const docs = Array.from({ length: 60 }, () => execution('bulk-a'));
    await executions.insertMany(docs);
    const ops = docs.map((d, i) => ({
      updateOne: { filter: { _id: d._id, status: 'SCHEDULED' as const }, update: { $set: { reason: i % 2 === 0 ? 'even' : null } } },
    }));
    // Two statements that match nothing, at known places.
    const missing = { updateOne: { filter: { _id: new ObjectId(), status: 'SCHEDULED' as const }, update: { $set: { reason: 'none' } } } };
    ops.splice(10, 0, missing);
    ops.push(missing);
    // Every document starts with reason null: the odd ones match but change nothing.
    const result = await bulkUpdate(executions, ops, true);
    expect({ matchedCount: result.matchedCount, modifiedCount: result.modifiedCount }).toEqual({ matchedCount: 60, modifiedCount: 30 });
    expect(result.matched!.flatMap((m, i) => (m ? [] : [i]))).toEqual([10, 61]);
    expect(await executions.countDocuments({ tenantId: 'bulk-a', reason: 'even' })).toBe(30);
  });

  it('keeps at most inFlight statements in flight, in ops order, and still says which matched', async () => {
    const watched = await new MongoClient(server.url, { maxPoolSize: 3, monitorCommands: true }).connect();
    let open = 0;
    let most = 0;
    watched.on('commandStarted', (e) => {
      if (e.commandName === 'update') most = Math.max(most, ++open);
    });
    watched.on('commandSucceeded', (e) => {
      if (e.commandName === 'update') open--;
    });
    try {
      const collection = watched.db().collection<ExecutionDoc>('executions');
      const docs = Array.from({ length: 12 }, () => execution('bulk-lanes'));
      await collection.insertMany(docs);
      const ops = docs.map((d) => ({ updateOne: { filter: { _id: d._id }, update: { $set: { reason: 'laned' } } } }));
      ops.splice(5, 0, { updateOne: { filter: { _id: new ObjectId() }, update: { $set: { reason: 'laned' } } } });
      const result = await bulkUpdate(collection, ops, true, 2);
      expect(result.matched!.flatMap((m, i) => (m ? [] : [i]))).toEqual([5]);
      expect(result.matchedCount).toBe(12);
      expect(most).toBe(2);
      expect(await collection.countDocuments({ tenantId: 'bulk-lanes', reason: 'laned' })).toBe(12);
    } finally {
      await watched.close();
    }
  });

  it('as one bulk command (MongoDB) says every statement matched, or that it cannot tell which did not', async () => {
    const docs = Array.from({ length: 3 }, () => execution('bulk-c'));
    await executions.insertMany(docs);
    const ops = docs.map((d) => ({ updateOne: { filter: { _id: d._id }, update: { $set: { reason: 'grouped' } } } }));
    expect(await bulkUpdate(executions, ops, false)).toEqual({ matchedCount: 3, modifiedCount: 3, matched: [true, true, true] });
    const withMiss = [...ops, { updateOne: { filter: { _id: new ObjectId() }, update: { $set: { reason: 'grouped' } } } }];
    expect(await bulkUpdate(executions, withMiss, false)).toEqual({ matchedCount: 3, modifiedCount: 0, matched: null });
  });

  it('throws when a statement fails, after the others were applied', async () => {
    const [good, bad] = [execution('bulk-b'), execution('bulk-b')];
    await executions.insertMany([good, bad]);
    const ops = [
      { updateOne: { filter: { _id: good._id }, update: { $set: { reason: 'written' } } } },
      // $inc on a string field is refused by the server.
      { updateOne: { filter: { _id: bad._id }, update: { $inc: { occurrenceKey: 1 } } } },
    ];
    await expect(bulkUpdate(executions, ops as never, true)).rejects.toThrow(/Cannot (apply|increment)|non-numeric/i);
    expect((await executions.findOne({ _id: good._id }))?.reason).toBe('written');
  });

  it('group-commits 150 claims and their ends at once without exhausting the pool', async () => {
    const docs = Array.from({ length: 150 }, () => execution('bulk-c'));
    await executions.insertMany(docs);
    const store = new RunStore(db, () => new Date(), { updatesOneByOne: true });
    const claims = await Promise.all(
      docs.map((d) =>
        store.claim({
          id: d._id,
          from: { status: 'SCHEDULED', attempt: 0 },
          workerId: 'w-1',
          startedAt: new Date(),
          deadlineAfterMs: 60_000,
        }),
      ),
    );
    expect(claims.filter((c) => c.claimed)).toHaveLength(150);
    const ends = await Promise.all(
      docs.map((d) =>
        store.endAttempt({
          id: d._id,
          attempt: 1,
          status: 'SUCCEEDED',
          nextAttemptAt: null,
          final: true,
          error: null,
          reason: null,
          resultJson: null,
          outcome: 'SUCCEEDED',
          httpStatus: 200,
          start: null,
        }),
      ),
    );
    expect(ends.filter((e) => e.ended)).toHaveLength(150);
    expect(await executions.countDocuments({ tenantId: 'bulk-c', status: 'SUCCEEDED' })).toBe(150);
  }, 60_000);
});
