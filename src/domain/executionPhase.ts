import type { ExecutionStatus } from './execution.js';

/*
 * An execution's phase: whether it has started (or finished) or is still waiting for its time or a
 * worker. Monitoring lists history first with it, since a frequent job always has upcoming
 * occurrences materialised ahead of now that sort above every run that happened.
 */

export const EXECUTION_PHASES = ['HISTORY', 'UPCOMING'] as const;
export type ExecutionPhase = (typeof EXECUTION_PHASES)[number];

/** Not started yet. */
export const UPCOMING_STATUSES: readonly ExecutionStatus[] = ['SCHEDULED', 'QUEUED'];
/** Started or finished: every other status. */
export const HISTORY_STATUSES: readonly ExecutionStatus[] = ['RUNNING', 'RETRYING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'];

export function statusesOfPhase(phase: ExecutionPhase): readonly ExecutionStatus[] {
  return phase === 'HISTORY' ? HISTORY_STATUSES : UPCOMING_STATUSES;
}

/**
 * The statuses a list asked for `statuses` and `phase` may return: null for any status (neither
 * given; an empty `statuses` counts as not given), otherwise the intersection, possibly empty.
 */
export function statusesMatching(
  statuses: readonly ExecutionStatus[] | null | undefined,
  phase: ExecutionPhase | null | undefined,
): readonly ExecutionStatus[] | null {
  const asked = statuses?.length ? [...new Set(statuses)] : null;
  if (!phase) return asked;
  const ofPhase = statusesOfPhase(phase);
  return asked ? asked.filter((s) => ofPhase.includes(s)) : ofPhase;
}
