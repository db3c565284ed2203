/** What a registered handler receives for one attempt. */
export interface HandlerContext {
  /** The execution's payload (the job's, or a manual trigger's override). */
  payload: unknown;
  /** The idempotency key: the same for every attempt of one execution. */
  executionId: string;
  attempt: number;
  /** Fired on timeout or cancellation; a handler should stop promptly when it fires. */
  signal: AbortSignal;
}

/** A handler resolves with its result (stored as JSON) or throws to fail the attempt. */
export type Handler = (context: HandlerContext) => Promise<unknown>;

export type HandlerRegistry = ReadonlyMap<string, Handler>;
