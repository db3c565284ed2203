/** Seconds; resolves 5 ms to 60 s (start lag, attempt duration, GraphQL latency, sweep pass). */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];
/** Jobs or occurrences handled by one sweep pass (a pass takes at most 50 batches of 100 jobs). */
export const PER_PASS_BUCKETS = [0, 1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];
