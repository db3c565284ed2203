/**
 * Group commit: callers submit one item each and wait for its result; items submitted while a
 * batch is being written (or within `windowMs` of the first) are written together by one `write`
 * call, so many executions' state changes cost one MongoDB command. An idle caller waits at most
 * `windowMs`. `write` returns one result per item, in order; if it throws, every caller of that
 * batch gets the error.
 */
export class GroupCommit<Item, Result> {
  private pending: { item: Item; resolve: (r: Result) => void; reject: (e: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private inFlight = 0;

  /**
   * @param write Writes one batch.
   * @param options windowMs: how long the first item of a batch waits for others (default 2 ms);
   *   maxItems: a batch's size at most (default 500); maxInFlight: batches written at once (default 2).
   */
  constructor(
    private readonly write: (items: Item[]) => Promise<Result[]>,
    private readonly options: { windowMs?: number; maxItems?: number; maxInFlight?: number } = {},
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= (this.options.maxItems ?? 500)) this.flush();
      else if (!this.timer && this.inFlight < (this.options.maxInFlight ?? 2)) {
        this.timer = setTimeout(() => this.flush(), this.options.windowMs ?? 2);
      }
    });
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0 || this.inFlight >= (this.options.maxInFlight ?? 2)) return;
    const batch = this.pending.splice(0, this.options.maxItems ?? 500);
    this.inFlight++;
    this.write(batch.map((b) => b.item))
      .then(
        (results) => batch.forEach((b, i) => b.resolve(results[i])),
        (error: unknown) => batch.forEach((b) => b.reject(error)),
      )
      .finally(() => {
        this.inFlight--;
        // What arrived meanwhile goes out at once: it has waited for this batch already.
        if (this.pending.length > 0) this.flush();
      });
  }
}
