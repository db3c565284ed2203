import { isMongoUnavailable } from '../store/mongo.js';

/**
 * Runs `write` again, every `everyMs`, while MongoDB is unreachable, for up to `forMs`: a finished
 * attempt's result is kept and recorded once MongoDB is back instead of being lost (and the attempt
 * repeated). The queue lock stays renewed meanwhile, since the delivery is still running.
 */
export async function retryWhileMongoDown<T>(write: () => Promise<T>, options: { forMs?: number; everyMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (options.forMs ?? 120_000);
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (!isMongoUnavailable(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 1000));
    }
  }
}
