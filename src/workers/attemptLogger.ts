import type { ObjectId } from 'mongodb';
import type { Logger } from '../logger.js';
import { executionLogFields, jobLogFields } from '../ids/logFields.js';

/** The attempt's lines carry which tenant, job and execution they are about (ids as ids/logFields.ts spells them). */
export function attemptLogger(logger: Logger, tenantId: string, jobId: ObjectId, executionId: ObjectId | string): Logger {
  return logger.child({ tenantId, ...jobLogFields(jobId), ...executionLogFields(executionId) });
}
