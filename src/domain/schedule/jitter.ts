/**
 * `nominal` delayed by a uniformly random whole number of milliseconds in [0, jitterSeconds] seconds
 * (both ends included). `random` returns a number in [0, 1), like Math.random.
 */
export function applyJitter(nominal: Date, jitterSeconds: number, random: () => number): Date {
  const maxDelayMs = Math.round(jitterSeconds * 1000);
  if (!(maxDelayMs > 0)) return new Date(nominal.getTime());
  const delayMs = Math.min(maxDelayMs, Math.max(0, Math.floor(random() * (maxDelayMs + 1))));
  return new Date(nominal.getTime() + delayMs);
}
