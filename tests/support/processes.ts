import { spawn, type ChildProcess } from 'node:child_process';

/** Starts `node dist/main.js` (built by `npm test`) and resolves with its URL once it logs that it started. */
export async function startProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, ['dist/main.js'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 20 s: ${stderr}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const started = stderr.split('\n').map((line) => (line.startsWith('{') ? JSON.parse(line) : null)).find((l) => l?.msg === 'kairos started');
      if (started) {
        clearTimeout(timer);
        resolve(started.url);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${stderr}`));
    });
  });
  return { child, url, stderr: () => stderr };
}

/** MONGO_URL with its database replaced by `dbName` (query options kept). */
export function mongoUrlFor(mongoUrl: string, dbName: string): string {
  return mongoUrl.replace(/\/[^/?]*(\?|$)/, `/${dbName}$1`);
}
