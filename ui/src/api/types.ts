/** The shapes the pages work with: the SDK's, and those of the dashboard's own documents (operations.graphql). */
import type { Job } from './client.js';
import type { ExecutionSummaryFieldsFragment, JobRowFieldsFragment, PageInfoFieldsFragment } from './generated.js';

/** A row of the jobs table: the job's summary, its last outcome and its recent runs. */
export type JobRow = JobRowFieldsFragment;
/** A row of an executions table; a live event's execution (the SDK's Execution) is one too. */
export type ExecutionSummary = ExecutionSummaryFieldsFragment;
export type PageInfo = PageInfoFieldsFragment;
export type Schedule = Job['schedule'];
export type Target = Job['target'];
