import type { Clock } from '../clock.js';

/**
 * Reuses a read younger than `maxAgeMs` for every caller asking for the same key: many subscribers
 * polling one record cost one read per period between them, not one each (a tenant's 200
 * subscriptions to one bulk operation would otherwise read it 800 times a second). Keeps at most
 * `maxEntries` keys, the oldest going first; a failed read is not kept.
 */
export class RecentReads<T> {
  private readonly recent = new Map<string, { at: number; value: Promise<T> }>();

  constructor(
    private readonly clock: Clock,
    private readonly maxAgeMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  read(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.clock().getTime();
    const hit = this.recent.get(key);
    if (hit && now - hit.at < this.maxAgeMs) return hit.value;
    const value = load();
    value.catch(() => {
      if (this.recent.get(key)?.value === value) this.recent.delete(key);
    });
    this.recent.delete(key);
    if (this.recent.size >= this.maxEntries) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(key, { at: now, value });
    return value;
  }
}
