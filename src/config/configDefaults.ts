/**
 * Defaults of the settings whose value other modules take as a required option: kept here alone,
 * so a module never restates one as a fallback (tests that build those modules pass these).
 */
export const CONFIG_DEFAULTS = {
  jwtMaxTtlSeconds: 30 * 24 * 3600,
  queueLockMs: 30_000,
  leaseTtlMs: 5_000,
  reconcileEveryMs: 30_000,
  reconcileGraceMs: 60_000,
  purgeEveryMs: 300_000,
  workerDrainMs: 10_000,
  workerWedgedMs: 15_000,
  workerClaimAfterMs: 1_000,
  queueShardsSingle: 1,
  queueShardsCluster: 6,
} as const;
