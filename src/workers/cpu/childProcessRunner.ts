import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HandlerContext } from '../handlers/handler.js';
import type { FromChild, ToChild } from './childProtocol.js';

export interface ChildProcessRunnerOptions {
  /** Module exporting extra handlers, loaded by each child (config HANDLERS_MODULE). */
  handlersModule: string | null;
  /** How long a child may ignore an abort before it is killed with SIGKILL. Default 1 s. */
  killGraceMs?: number;
  /** The child's entry script. Default: cpuChild.js beside this module in dist/. */
  childScript?: string;
}

/**
 * Runs each CPU_BOUND attempt in a fresh child process, so a handler that busy-loops cannot delay
 * the worker's event loop (IO_BOUND attempts, lock renewal, the API). How many run at once is the
 * CPU queue consumer's concurrency. `close()` kills any child still running.
 */
export class ChildProcessRunner {
  private readonly children = new Set<ChildProcess>();

  private readonly killGraceMs: number;

  private readonly childScript: string;

  constructor(private readonly options: ChildProcessRunnerOptions) {
    this.killGraceMs = options.killGraceMs ?? 1000;
    this.childScript = options.childScript ?? defaultChildScript();
  }

  /** Resolves with the handler's result; rejects with its error, with the signal's reason once aborted, or when the child dies. */
  run(handler: string, context: HandlerContext): Promise<unknown> {
    const { signal } = context;
    if (signal.aborted) return Promise.reject(abortReason(signal));
    // execArgv: [] so the child does not inherit inspector or test-runner flags of this process.
    const child = fork(this.childScript, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.children.add(child);
    return new Promise<unknown>((resolve, reject) => {
      let killTimer: NodeJS.Timeout | undefined;
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        fn();
      };
      const onAbort = () => {
        send(child, { type: 'abort', message: signal.reason instanceof Error ? signal.reason.message : 'aborted' });
        killTimer = setTimeout(() => child.kill('SIGKILL'), this.killGraceMs);
        // The attempt ends now: the caller records why (timeout, cancel, shutdown) from the signal.
        settle(() => reject(abortReason(signal)));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      child.on('message', (message: FromChild) => {
        if (message.type !== 'result') return;
        settle(() => (message.ok ? resolve(message.value) : reject(new Error(message.error))));
      });
      child.once('error', (error) => settle(() => reject(error)));
      child.once('exit', (code, exitSignal) => {
        clearTimeout(killTimer);
        this.children.delete(child);
        settle(() => reject(new Error(`The handler's process exited (${exitSignal ?? `code ${code}`}) without a result`)));
      });
      send(child, {
        type: 'run',
        handler,
        handlersModule: this.options.handlersModule,
        payload: context.payload,
        executionId: context.executionId,
        attempt: context.attempt,
      });
    });
  }

  /** Kills every child still running and waits for them to exit. */
  async close(): Promise<void> {
    await Promise.all(
      [...this.children].map(
        (child) =>
          new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
  }
}

function send(child: ChildProcess, message: ToChild): void {
  if (child.connected) child.send(message, (error) => error && child.kill('SIGKILL'));
}

/** Under ts-jest this module is loaded from src/, but the child runs compiled JavaScript: use dist/ (built by `npm test`). */
function defaultChildScript(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts')
    ? here.replace(/\/src\/workers\/cpu\/childProcessRunner\.ts$/, '/dist/workers/cpu/cpuChild.js')
    : here.replace(/childProcessRunner\.js$/, 'cpuChild.js');
}

/** Why the attempt was aborted: the signal's reason (the worker aborts with Error classes; anything else is wrapped). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}
