import { readFileSync } from 'node:fs';
import { Worker, type RedisClient } from 'bullmq';

const ADD_DUE_MARKER = readFileSync(new URL('./lua/addDueMarker.lua', import.meta.url), 'utf8');

/**
 * A BullMQ Worker that takes a delayed entry when it is due rather than up to 100 ms later.
 *
 * Waiting for its next delayed entry, a BullMQ worker blocks on BZPOPMIN of the queue's marker
 * with a timeout that ends at the entry's due time. Redis ends timed-out blocks only when its
 * event loop wakes: on other traffic, or on its timer every 1/hz s (100 ms at the default hz 10),
 * so an idle queue started entries 20 to 70 ms late, drifting with Redis' timer. At the due time
 * this worker adds the delay marker BullMQ's own scripts add (member "1", the due time as score),
 * which ends the block at once on any Redis version and does not depend on the server's hz.
 * A marker that arrives after the entry was taken costs one empty fetch.
 */
export class PunctualWorker<DataType> extends Worker<DataType> {
  private wake: NodeJS.Timeout | null = null;

  /** Clients the script is defined on (BullMQ's client interface has no ZADD; a script also routes by key on a Cluster). */
  private readonly defined = new WeakSet<RedisClient>();

  protected override getBlockTimeout(blockUntil: number): number {
    const timeout = super.getBlockTimeout(blockUntil);
    if (this.wake) clearTimeout(this.wake);
    this.wake = null;
    // blockUntil > 0: the worker waits for a delayed entry due then (0: for new entries, which wake it themselves).
    if (blockUntil > 0 && timeout > 0) {
      this.wake = setTimeout(() => {
        this.wake = null;
        void this.addDueMarker(blockUntil);
      }, blockUntil - Date.now());
      this.wake.unref();
    }
    return timeout;
  }

  override async close(force?: boolean): Promise<void> {
    if (this.wake) clearTimeout(this.wake);
    this.wake = null;
    return super.close(force);
  }

  private async addDueMarker(dueAt: number): Promise<void> {
    if (this.closing) return;
    try {
      const client = await this.getBackend().client;
      if (!this.defined.has(client)) {
        client.defineCommand('kairosAddDueMarker', { numberOfKeys: 1, lua: ADD_DUE_MARKER });
        this.defined.add(client);
      }
      await client.runCommand('kairosAddDueMarker', [this.keys.marker, dueAt]);
    } catch (error) {
      // The block still ends at its timeout; the role's error listener logs and counts this.
      this.emit('error', error instanceof Error ? error : new Error(String(error)));
    }
  }
}
