import { MongoClient, ObjectId } from 'mongodb';
import { newExecution, type ExecutionDoc } from '../../src/domain/execution.js';
import { MONGO_URL } from './env.js';

/**
 * Writes `count` executions of a tenant's job straight into a test database, FAILED after one
 * attempt at `finishedAt` (or in `fields`' status): dead letters made cheaply, without running them.
 */
export async function insertFailedExecutions(
  dbName: string,
  tenantId: string,
  jobId: string,
  count: number,
  finishedAt: Date,
  fields: Partial<ExecutionDoc> = {},
): Promise<ObjectId[]> {
  const mongo = new MongoClient(MONGO_URL);
  try {
    const docs = Array.from({ length: count }, () => {
      const _id = new ObjectId();
      const fresh = newExecution(
        {
          _id,
          tenantId,
          jobId: new ObjectId(jobId),
          occurrenceKey: `manual:${_id.toHexString()}`,
          trigger: 'MANUAL',
          workload: 'IO_BOUND',
          scheduledFor: finishedAt,
          maxAttempts: 1,
        },
        finishedAt,
      );
      return { ...fresh, status: 'FAILED' as const, attempt: 1, finishedAt, error: 'HTTP 500', ...fields };
    });
    await mongo.db(dbName).collection<ExecutionDoc>('executions').insertMany(docs);
    return docs.map((d) => d._id);
  } finally {
    await mongo.close();
  }
}
