import type { ExecutionDoc } from '../domain/execution.js';
import type { ExecutionEventMessage } from './executionEventBus.js';
import { carriedExecution, executionAfter, executionAsOf } from './executionAsOf.js';

/**
 * The executions this api process relays to its subscribers, each as of its event: carried by the
 * event (an insert's), else derived from the one relayed for the execution's previous event (a
 * worker's RUNNING and end events: executionAfter), else read. Worked out once per event object and
 * shared by all the tenant's subscribers (the bus hands them the same object), so a tenant's
 * subscribers cost at most one read per event, and none while this process relayed the execution's
 * previous state (before, every RUNNING and end event cost a read: half the statements of an
 * execution while anyone watched). Keeps the latest state of the `maxExecutions` most recently
 * relayed executions, in memory.
 */
export class RelayedExecutions {
  private readonly latest = new Map<string, ExecutionDoc>();

  private readonly byEvent = new WeakMap<ExecutionEventMessage, Promise<ExecutionDoc | null>>();

  /** @param maxExecutions Executions whose latest state is kept at most (about 1 KiB each); the least recently relayed goes first. Default 5 000. */
  constructor(private readonly maxExecutions = 5000) {}

  /** The execution as of `event`, or null when it is not found; `read` loads it as stored (tenant-scoped) when needed. */
  asOf(event: ExecutionEventMessage, read: () => Promise<ExecutionDoc | null>): Promise<ExecutionDoc | null> {
    let relayed = this.byEvent.get(event);
    if (!relayed) this.byEvent.set(event, (relayed = this.relay(event, read)));
    return relayed;
  }

  private async relay(event: ExecutionEventMessage, read: () => Promise<ExecutionDoc | null>): Promise<ExecutionDoc | null> {
    const key = `${event.tenantId}:${event.executionId}`;
    const known = this.latest.get(key);
    let doc = carriedExecution(event) ?? (known ? executionAfter(known, event) : null);
    if (!doc) {
      const stored = await read();
      doc = stored && executionAsOf(stored, event);
    }
    this.latest.delete(key);
    if (doc) {
      this.latest.set(key, doc);
      if (this.latest.size > this.maxExecutions) this.latest.delete(this.latest.keys().next().value!);
    }
    return doc;
  }
}
