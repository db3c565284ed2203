import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from '@jest/globals';

const run = promisify(execFile);

/** Ports of a cluster of this file's own, apart from the test cluster on 7001-7003 that other files use meanwhile. */
const PORTS = [7211, 7212, 7213];

const clusterScript = (dataDir: string) =>
  run('bash', ['scripts/redis-cluster.sh'], {
    env: { ...process.env, REDIS_CLUSTER_PORTS: PORTS.join(' '), REDIS_CLUSTER_DATA: dataDir },
    timeout: 60_000,
  });

const nodeDir = async (port: number) =>
  (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'config', 'get', 'dir'])).stdout.split('\n')[1] ?? '';

describe('scripts/redis-cluster.sh', () => {
  const first = mkdtempSync(join(tmpdir(), 'kairos-cluster-a-'));
  const second = mkdtempSync(join(tmpdir(), 'kairos-cluster-b-'));
  afterAll(async () => {
    for (const port of PORTS) await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'shutdown', 'nosave']).catch(() => undefined);
    for (const dir of [first, second]) rmSync(dir, { recursive: true, force: true });
  });

  it('replaces nodes whose directory was deleted, so a master restarted where it runs can come back', async () => {
    await clusterScript(first);
    expect(await nodeDir(PORTS[0])).toBe(join(first, String(PORTS[0])));
    // The clone that started the nodes is deleted while they run: Redis then reports no directory,
    // and a restart in place (tests/support/redisCluster.ts, restartEmpty) could not open its files.
    rmSync(first, { recursive: true, force: true });
    expect(await nodeDir(PORTS[0])).toBe('');

    const { stdout } = await clusterScript(second);
    expect(stdout).toContain(`redis cluster: started node(s) ${PORTS.join(' ')}`);
    expect(stdout).toContain(`redis cluster: ok on ports ${PORTS.join(' ')}`);
    for (const port of PORTS) expect(await nodeDir(port)).toBe(join(second, String(port)));
  });
});
