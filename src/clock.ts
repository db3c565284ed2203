/** Time as an input: production passes `systemClock`, unit tests a fixed or stepped clock. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/**
 * `work`'s value, or `fallback` when it has not settled within `ms` (it goes on regardless); a
 * rejection within `ms` rejects. The timer is cleared, so it never holds the process open.
 */
export async function within<T>(work: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
