import { errorMessage } from '../../logger.js';
import { loadHandlers } from '../handlers/loadHandlers.js';
import type { FromChild, ToChild } from './childProtocol.js';

/**
 * Entry point of the child process that runs one CPU_BOUND attempt (forked by ChildProcessRunner):
 * receives the run, answers with the result, and exits. An abort fires the handler's signal; a
 * handler that ignores it is killed by the parent.
 */
const controller = new AbortController();

const reply = (message: FromChild) => process.send?.(message, () => process.disconnect());

process.on('message', (message: ToChild) => {
  if (message.type === 'abort') {
    controller.abort(new Error(message.message));
    return;
  }
  void run(message);
});

async function run(request: Extract<ToChild, { type: 'run' }>): Promise<void> {
  try {
    const handler = (await loadHandlers(request.handlersModule)).get(request.handler);
    if (!handler) throw new Error(`No handler named "${request.handler}" is registered in this worker`);
    const value = await handler({
      payload: request.payload,
      executionId: request.executionId,
      attempt: request.attempt,
      signal: controller.signal,
    });
    reply({ type: 'result', ok: true, value: value === undefined ? null : value });
  } catch (error) {
    reply({ type: 'result', ok: false, error: errorMessage(error) });
  }
}

// The parent gone (worker killed): nothing will read the result, so stop.
process.on('disconnect', () => process.exit(0));
