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

  /** This tenant's events that also pass `accept`, in arrival order (see eventStream). */
  stream(accept: (event: ExecutionEventMessage) => boolean): Promise<AsyncIterableIterator<ExecutionEventMessage>> {
    return eventStream(this.bus, this.tenantId, accept);
  }
}
