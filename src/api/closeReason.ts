/** The most bytes a WebSocket close reason may hold (RFC 6455: 125 bytes of payload, 2 for the code). */
const MAX_CLOSE_REASON_BYTES = 123;

/**
 * `message` cut to fit a WebSocket close frame: ws throws on a longer reason, which would turn a
 * clear 4401 into a 4500. Cut at a character boundary, with "…" when shortened.
 */
export function closeReason(message: string): string {
  if (Buffer.byteLength(message) <= MAX_CLOSE_REASON_BYTES) return message;
  let out = '';
  for (const char of message) {
    if (Buffer.byteLength(out + char + '…') > MAX_CLOSE_REASON_BYTES) break;
    out += char;
  }
  return out + '…';
}
