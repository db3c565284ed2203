import type { AlertSettings } from './alertSettings.js';
import type { ApiSettings } from './apiSettings.js';
import type { ConnectionSettings } from './connectionSettings.js';
import type { ObservabilitySettings } from './observabilitySettings.js';
import type { SchedulerSettings } from './schedulerSettings.js';
import type { TenantDefaults } from './tenantDefaults.js';
import type { WorkerSettings } from './workerSettings.js';

export type Role = 'api' | 'scheduler' | 'worker';
export const ALL_ROLES: readonly Role[] = ['api', 'scheduler', 'worker'];

/**
 * Everything Kairos reads from the environment, validated once at start by loadConfig (src/config.ts;
 * docs/operating.md lists every setting), grouped by the part that reads it.
 */
export interface KairosConfig
  extends ConnectionSettings, ApiSettings, WorkerSettings, SchedulerSettings, TenantDefaults, ObservabilitySettings {
  /** ROLES: the roles this process runs, comma-separated. Default all three. */
  roles: Role[];
  /** `development` enables introspection and detailed logs; anything else is production. */
  mode: 'development' | 'production';
  /** Alerts: their rate per tenant, rules cache, delivery retries and the overdue check (src/alerts). */
  alerts: AlertSettings;
}
