import type { ChildProcess } from 'node:child_process';
import { spawnKairos } from '../../src/chaos/kairosProcess.js';

/** Starts `node dist/main.js` (built by `npm test`) and resolves with its URL once it logs that it started. */
export async function startProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; metricsUrl: string; stderr: () => string }> {
  const started = await spawnKairos(env);
  return { child: started.child, url: started.url ?? '', metricsUrl: started.metricsUrl ?? '', stderr: started.stderr };
}

/** MONGO_URL with its database replaced by `dbName` (query options kept). */
export function mongoUrlFor(mongoUrl: string, dbName: string): string {
  return mongoUrl.replace(/\/[^/?]*(\?|$)/, `/${dbName}$1`);
}
