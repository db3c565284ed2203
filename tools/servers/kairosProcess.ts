import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export interface KairosProcess {
  child: ChildProcess;
  /** The GraphQL URL when the process runs the api role, else null. */
  url: string | null;
  /** Where it serves `/metrics`. */
  metricsUrl: string | null;
  /** Its log so far (the last 64 KiB), when not written to a file. */
  stderr: () => string;
}

/**
 * Starts `node dist/main.js` (built by `npm run build`) with exactly `env` (plus PATH, and
 * METRICS_PORT 0 unless given, since processes side by side cannot share one port), and resolves
 * once it logs that it started. Its log goes to `logFile` when given (appended), else it is kept in
 * memory; `nodeArgs` go before the script (the benchmark preloads its command counter). The caller kills it.
 */
export async function spawnKairos(
  env: Record<string, string>,
  options: { logFile?: string; startTimeoutMs?: number; nodeArgs?: string[] } = {},
): Promise<KairosProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), 'dist/main.js'], {
    env: { PATH: process.env.PATH ?? '', METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const file = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : null;
  let log = '';
  let pending = '';
  let metricsUrl: string | null = null;
  const url = await new Promise<string | null>((resolve, reject) => {
    let started = false;
    const timer = setTimeout(
      () => reject(new Error(`no start within ${options.startTimeoutMs ?? 20_000} ms: ${log.slice(-2000)}`)),
      options.startTimeoutMs ?? 20_000,
    );
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      file?.write(text);
      log = (log + text).slice(-65_536);
      if (started) return;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string | null; metricsUrl?: string };
        if (entry.msg === 'kairos started') {
          started = true;
          metricsUrl = entry.metricsUrl ?? null;
          clearTimeout(timer);
          resolve(entry.url ?? null);
        }
      }
    });
    child.once('exit', (code) => {
      file?.end();
      clearTimeout(timer);
      if (!started) reject(new Error(`exited with ${code} before starting: ${log.slice(-2000)}`));
    });
  });
  return { child, url, metricsUrl, stderr: () => log };
}
