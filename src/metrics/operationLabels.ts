/** GraphQL operation names kept as label values; past this many distinct names a process reports `other`. */
const MAX_OPERATION_NAMES = 200;
const OPERATION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** The `operation` label's own values: a client's name equal to one is counted as `other`. */
const FIXED_OPERATION_LABELS = new Set(['anonymous', 'other', 'unauthenticated', 'invalid']);

/**
 * The `operation` label of the GraphQL families. The name is the client's, so it is kept only when
 * it looks like a name and fewer than MAX_OPERATION_NAMES distinct ones were seen: a client cannot
 * grow the series without bound.
 */
export class OperationLabels {
  private readonly seen = new Set<string>();

  of(name: string | null | undefined): string {
    if (!name) return 'anonymous';
    if (!OPERATION_NAME.test(name) || FIXED_OPERATION_LABELS.has(name)) return 'other';
    if (this.seen.has(name)) return name;
    if (this.seen.size >= MAX_OPERATION_NAMES) return 'other';
    this.seen.add(name);
    return name;
  }
}
