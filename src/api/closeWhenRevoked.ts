import { CloseCode } from 'graphql-ws';
import type { ClosableSocket } from './closeAtExpiry.js';

/**
 * Checks a socket's credential every `everyMs` and closes the socket with 4401 once `stillValid`
 * says no (an API key was revoked). A failed check (database unreachable) keeps the socket and is
 * reported to `onError`. The timer is cleared when the socket closes.
 */
export function closeWhenRevoked(
  socket: ClosableSocket,
  stillValid: () => Promise<boolean>,
  everyMs: number,
  onError: (error: unknown) => void,
): void {
  if (socket.readyState !== 1) return;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const check = async () => {
    try {
      if (!(await stillValid())) return socket.close(CloseCode.Unauthorized, 'The API key has been revoked');
    } catch (error) {
      onError(error);
    }
    if (!closed) timer = setTimeout(() => void check(), everyMs).unref();
  };
  socket.once('close', () => {
    closed = true;
    clearTimeout(timer);
  });
  timer = setTimeout(() => void check(), everyMs).unref();
}
