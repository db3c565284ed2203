import type { ObjectId } from 'mongodb';
import { toGlobalId } from './globalId.js';

/**
 * The fields every log line that names a job carries: `jobId` is the global id the API, dashboard
 * and CLI show (so an id copied from any of them finds the line), `jobObjectId` the raw ObjectId
 * hex that MongoDB and the chaos verdicts show.
 */
export function jobLogFields(id: ObjectId | string): { jobId: string; jobObjectId: string } {
  return { jobId: toGlobalId('Job', id), jobObjectId: id.toString() };
}

/** The same for an execution: `executionId` (global id) and `executionObjectId` (raw hex). */
export function executionLogFields(id: ObjectId | string): { executionId: string; executionObjectId: string } {
  return { executionId: toGlobalId('Execution', id), executionObjectId: id.toString() };
}
