import type { ExecutionDoc } from '../domain/execution.js';

/**
 * A fresh execution (SCHEDULED, as newExecution makes it) as it is inserted SKIPPED with `reason`,
 * over at once: an occurrence its job's misfire policy skips, or a record of occurrences past the
 * tenant's scheduled budget (scheduler/budgetSkips.ts skipRecord). The materialiser's insert
 * (insertOccurrences) publishes its event.
 */
export function skippedOnInsert(doc: ExecutionDoc, reason: string, now: Date): ExecutionDoc {
  return { ...doc, status: 'SKIPPED', reason, finishedAt: now };
}
