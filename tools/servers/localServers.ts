import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * A Redis or MongoDB-wire server run as a child process on a free local port, so outage tests and
 * the chaos run can kill, restart and pause it (real signals) without touching the shared servers.
 * Whoever starts one stops it.
 */
export interface LocalServer {
  url: string;
  readonly pid: number;
  /** SIGSTOP: the server keeps its connections but answers nothing. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** SIGKILL, then starts it again on the same port (Redis comes back empty: no persistence). */
  restart(options?: { downMs?: number }): Promise<void>;
  /** Kills it and waits for the exit. */
  stop(): Promise<void>;
  /** Kills it without starting it again (restart() brings it back). */
  kill(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once something accepts TCP connections on the port. */
async function waitForPort(port: number, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode} before listening on ${port}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts the server; with `logFile`, its stderr is appended there too (a server that dies mid-run says why). */
async function startServer(url: string, port: number, command: () => [string, string[]], logFile?: string): Promise<LocalServer> {
  let child: ChildProcess;
  const launch = async () => {
    const [file, args] = command();
    child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
      if (logFile) appendFileSync(logFile, chunk);
    });
    try {
      await waitForPort(port, 20_000, child);
    } catch (error) {
      child.kill('SIGKILL');
      throw new Error(`${(error as Error).message}: ${stderr}`, { cause: error });
    }
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url,
    get pid() {
      return child.pid ?? 0;
    },
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    kill,
    restart: async (options = {}) => {
      await kill();
      if (options.downMs) await new Promise((resolve) => setTimeout(resolve, options.downMs));
      await launch();
    },
    stop: kill,
  };
}

/** A redis-server without persistence (a restart loses every key, like FLUSHALL). */
export async function startLocalRedis(): Promise<LocalServer> {
  const port = await freePort();
  return startServer(`redis://127.0.0.1:${port}`, port, () => [
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--hz', '100', '--daemonize', 'no'],
  ]);
}

/**
 * FerretDB as built by `npm run services` (.cache/ferretdb/ferretdb, from the project root), storing
 * in `postgresUrl` when given (one database per server: FerretDB caches its metadata) or in SQLite
 * under `dataDir`; or mongod when FerretDB is not built and mongod is on PATH.
 */
export async function startLocalMongo(options: { dataDir: string; postgresUrl?: string }): Promise<LocalServer> {
  const port = await freePort();
  const ferret = path.resolve('.cache/ferretdb/ferretdb');
  const url = `mongodb://127.0.0.1:${port}/kairos`;
  if (existsSync(ferret)) {
    const backend = options.postgresUrl
      ? ['--handler=postgresql', `--postgresql-url=${options.postgresUrl}`]
      : ['--handler=sqlite', `--sqlite-url=file:${options.dataDir}/`];
    return startServer(
      url,
      port,
      () => [ferret, [`--listen-addr=127.0.0.1:${port}`, ...backend]],
      path.join(options.dataDir, 'ferretdb.log'),
    );
  }
  return startServer(url, port, () => ['mongod', ['--bind_ip', '127.0.0.1', '--port', String(port), '--dbpath', options.dataDir]]);
}
