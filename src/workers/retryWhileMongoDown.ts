import { isMongoUnavailable } from '../store/mongo.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Runs `write` again, every `everyMs`, while MongoDB is unreachable, for up to `forMs`: a finished
 * attempt's result is kept and recorded once MongoDB is back instead of being lost (and the attempt
 * repeated). The queue lock stays renewed meanwhile, since the delivery is still running.
 */
export async function retryWhileMongoDown<T>(write: () => Promise<T>, options: { forMs?: number; everyMs?: number } = {}): Promise<T> {
  const forMs = options.forMs ?? 120_000;
  const everyMs = options.everyMs ?? 1000;
  // Counted in pauses rather than read from a clock, so no wall clock hides in the worker.
  for (let waitedMs = 0; ; waitedMs += everyMs) {
    try {
      return await write();
    } catch (error) {
      if (!isMongoUnavailable(error) || waitedMs >= forMs) throw error;
      await sleep(everyMs);
    }
  }
}
