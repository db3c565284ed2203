import type { ChildProcess } from 'node:child_process';
import { spawnKairos } from '../../tools/servers/kairosProcess.js';
import { MONGO_URL, REDIS_URL, TEST_JWT_SECRET } from './env.js';

/** Starts `node dist/main.js` (built by `npm test`) and resolves with its URL once it logs that it started. */
export async function startProcess(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; metricsUrl: string; stderr: () => string }> {
  const started = await spawnKairos(env);
  return { child: started.child, url: started.url ?? '', metricsUrl: started.metricsUrl ?? '', stderr: started.stderr };
}

/** MONGO_URL with its database replaced by `dbName` (query options kept). */
export function mongoUrlFor(mongoUrl: string, dbName: string): string {
  return mongoUrl.replace(/\/[^/?]*(\?|$)/, `/${dbName}$1`);
}

/**
 * The environment of a Kairos process of one test deployment: the test servers with its database
 * and Redis prefix, the test secret and a free port, then `extra` (roles, timings, quotas).
 */
export function deploymentEnv(deployment: { dbName: string; prefix: string }, extra: Record<string, string> = {}): Record<string, string> {
  return {
    MONGO_URL: mongoUrlFor(MONGO_URL, deployment.dbName),
    REDIS_URL,
    REDIS_PREFIX: deployment.prefix,
    JWT_SECRET: TEST_JWT_SECRET,
    PORT: '0',
    ...extra,
  };
}
