/**
 * Shares one in-flight read among the callers asking for the same key at the same time, and keeps
 * nothing once it settles. Subscribers of one tenant receive an event together and each looks the
 * execution up: with thousands of them, one MongoDB read per event instead of one per subscriber,
 * and never a value older than the event. Keys must carry the tenant (callers read tenant-scoped).
 */
export class SharedReads<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  read(key: string, load: () => Promise<T>): Promise<T> {
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const started = load().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }
}
