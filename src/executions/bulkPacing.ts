/** How long one batch's worth of items takes at an operation's pace: progress is recorded (and seen) about this often. */
export const BATCH_MS = 250;

/** Items in one batch at `perSecond`: a quarter second's worth, at least one. */
export function batchSize(perSecond: number): number {
  return Math.max(1, Math.floor((perSecond * BATCH_MS) / 1000));
}

/**
 * How long to wait before the next batch so that the `handled` items since `sinceMs` keep to
 * `perSecond`: the time they were due to take, less the time they took; 0 when behind.
 */
export function paceDelayMs(handled: number, perSecond: number, sinceMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil(sinceMs + (handled * 1000) / perSecond - nowMs));
}
