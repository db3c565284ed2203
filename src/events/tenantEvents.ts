import { eventStream } from './eventStream.js';
import type { ExecutionEventBus, ExecutionEventMessage } from './executionEventBus.js';

/**
 * The execution events of one tenant: the process-wide bus narrowed to the tenant of the token,
 * built per request (or subscription) like the tenant's stores, so a subscription resolver narrows
 * further but cannot widen it.
 */
export class TenantEvents {
  constructor(
    private readonly bus: ExecutionEventBus,
    readonly tenantId: string,
  ) {}

  /** Calls `listener` with each of this tenant's events as received; the returned function unsubscribes it. */
  subscribe(listener: (event: ExecutionEventMessage) => void): Promise<() => void> {
    return this.bus.subscribe(this.tenantId, listener);
  }

  /** This tenant's events that also pass `accept`, in arrival order (see eventStream). */
  stream(accept: (event: ExecutionEventMessage) => boolean): Promise<AsyncIterableIterator<ExecutionEventMessage>> {
    return eventStream((push) =>
      this.subscribe((event) => {
        if (accept(event)) push(event);
      }),
    );
  }
}
