import type { KairosErrorCode } from './errors.js';

/**
 * The error code each WebSocket close code stands for: the `extensions.code` the server gives the
 * same refusal over HTTP. Any other close code is a dropped connection (NETWORK_ERROR), reconnected
 * until the reconnection attempts run out. The Go SDK's closeCodes (sdk/go/closecodes.go) and both
 * READMEs hold the same table; `bash scripts/sdk.sh check` (sdk/agreement.test.mjs) fails when they differ.
 */
export const CLOSE_CODES: Readonly<Record<number, KairosErrorCode>> = {
  4400: 'BAD_USER_INPUT', // graphql-ws: a message the protocol does not allow
  4401: 'UNAUTHENTICATED', // a missing, bad, expired or revoked credential
  4403: 'FORBIDDEN', // graphql-ws: a connection refused (Kairos refuses with 4401, 4429 or 4500 instead)
  4406: 'BAD_USER_INPUT', // graphql-ws: a subprotocol other than graphql-transport-ws
  4409: 'BAD_USER_INPUT', // graphql-ws: a subscription id already in use
  4429: 'QUOTA_EXCEEDED', // past the credential's or the tenant's socket cap
  4500: 'INTERNAL_SERVER_ERROR', // the credential or the socket caps could not be checked, or a server fault
};

/** The error code of a connection closed with `closeCode`. */
export function closeCodeError(closeCode: number): KairosErrorCode {
  return CLOSE_CODES[closeCode] ?? 'NETWORK_ERROR';
}
