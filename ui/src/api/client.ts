/**
 * The dashboard's Kairos client is the TypeScript SDK's (sdk/typescript), bundled from its source:
 * the dashboard sends requests, follows the live feed and reports errors (WebSocket close codes
 * included) exactly as the SDK does. The pages run the SDK's documents, and the dashboard's own
 * (generated.ts) where they select differently.
 */
import { KairosClient, KairosError } from '../../../sdk/typescript/src/index.js';

export { KairosClient, KairosError, documents } from '../../../sdk/typescript/src/index.js';
export type {
  ApiKey,
  BackfillResult,
  BulkOperation,
  CreateJobInput,
  Execution,
  ExecutionEvent,
  ExecutionPhase,
  ExecutionStatus,
  Job,
  JobStatus,
  Role,
  ScheduleInput,
  TypedDocument,
  UpdateJobInput,
  Viewer,
} from '../../../sdk/typescript/src/index.js';

/** Reconnections of the live feed in a row before it is reported lost. */
const LIVE_FEED_ATTEMPTS = 20;

/** A client for the Kairos API on this page's own origin, sending `token` as the bearer token. */
export function createClient(token: string, endpoint = '/graphql'): KairosClient {
  // Absolute: the SDK makes the live feed's ws(s):// URL from it.
  return new KairosClient({ url: new URL(endpoint, location.href).href, token, reconnect: { attempts: LIVE_FEED_ATTEMPTS } });
}

/** `error` as the KairosError the pages show: the SDK throws nothing else, but a page's own code might. */
export function asKairosError(error: unknown): KairosError {
  return error instanceof KairosError
    ? error
    : new KairosError('INTERNAL_SERVER_ERROR', error instanceof Error ? error.message : String(error));
}
