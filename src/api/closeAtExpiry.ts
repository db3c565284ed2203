import { CloseCode } from 'graphql-ws';
import type { Clock } from '../clock.js';

/** setTimeout's longest delay (about 24.8 days); a longer wait is made of several. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The part of a ws socket the closers use. */
export interface ClosableSocket {
  /** 1 while open (WebSocket.OPEN). */
  readonly readyState: number;
  close(code: number, reason: string): void;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * Closes a graphql-ws socket with 4401 (Unauthorized) when its token's validity ends, so a
 * subscription never outlives the token that opened it. The timer is cleared when the socket closes.
 */
export function closeAtExpiry(socket: ClosableSocket, validUntil: Date, clock: Clock): void {
  // Closed while its token was being checked: nothing to watch.
  if (socket.readyState !== 1) return;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const left = validUntil.getTime() - clock().getTime();
    if (left <= 0) return socket.close(CloseCode.Unauthorized, 'The token has expired');
    // A date past what Date can hold gives NaN, which setTimeout (like any delay over 2^31-1 ms)
    // turns into 1 ms: clamp, so a far-off expiry never makes the timer fire in a loop.
    timer = setTimeout(arm, Number.isFinite(left) ? Math.min(left, MAX_TIMER_MS) : MAX_TIMER_MS).unref();
  };
  socket.once('close', () => clearTimeout(timer));
  arm();
}
