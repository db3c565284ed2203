/**
 * Shares one in-flight read among the callers asking for the same key at the same time, and keeps
 * nothing once it settles: requests that miss TenantQuotas' cache together cost one read of the
 * tenant, and never get a value older than their request.
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
