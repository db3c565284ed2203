import { gqlOk } from './graphqlClient.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `probe` until it returns a value other than undefined; throws after `timeoutMs` with the
 * last value seen. For state that has no event to wait on (a process restarting, a server back).
 */
export async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: string | undefined;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last: ${last})` : ''}`);
    await sleep(intervalMs);
  }
}

export const EXECUTION_FIELDS = `id status attempt trigger scheduledFor error result finishedAt
  attempts { number outcome error httpStatus workerId startedAt finishedAt }`;

/** Waits until the execution with this global id is in one of `statuses`, and returns it. */
export async function waitForExecution(
  url: string,
  token: string,
  id: string,
  statuses: string[],
  timeoutMs: number,
): Promise<Record<string, any>> {
  return waitUntil(
    `execution ${id} to be ${statuses.join(' or ')}`,
    async () => {
      const { node } = await gqlOk(url, token, `query($id: ID!) { node(id: $id) { ... on Execution { ${EXECUTION_FIELDS} } } }`, { id });
      return statuses.includes(node?.status) ? node : undefined;
    },
    timeoutMs,
  );
}
