import type { ChangeAction } from '../domain/change.js';
import type { JobDoc } from '../domain/job.js';
import { jobChangeEntry } from '../domain/recordedFields.js';
import { toGlobalId } from '../ids/globalId.js';
import type { ChangeRecorder } from '../changes/changeLog.js';

/** Records a change of a job: created (`before` null), changed, or deleted (`after` null). Never throws (see ChangeLog). */
export function recordJobChange(
  changes: ChangeRecorder,
  action: ChangeAction,
  before: JobDoc | null,
  after: JobDoc | null,
  now: Date,
): Promise<void> {
  const id = (after ?? before)!._id;
  return changes.record(jobChangeEntry(action, id, toGlobalId('Job', id), before, after, now));
}
