import { BadUserInputError } from '../errors/index.js';
import { isPlainText } from './plainText.js';

/** One label of a job: a key and its value. A job has at most one value per key. */
export interface Label {
  key: string;
  value: string;
}

/** The bounds of a job's labels and of a label filter. */
export const LABEL_LIMITS = {
  /** Labels one job may carry, and labels one filter may name. */
  count: 32,
  keyLength: 63,
  valueLength: 200,
  /**
   * Jobs a label filter on executions may match: the executions are then read by those jobs' ids
   * (one `$in`), so the list stays bounded whatever the tenant's size.
   */
  filterJobs: 1000,
};

/**
 * A key: a letter or digit, then letters, digits and `.`, `_`, `/`, `-` (so `team`, `app.kubernetes.io/name`).
 * Never `=`, which separates the key from the value in the stored pair, and no spaces or control characters.
 */
const KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

/**
 * Validates labels as a client gives them (a job's, or a filter's, named by `field`): at most
 * LABEL_LIMITS.count, each key once, keys and values within their bounds. Returns them sorted by
 * key, so that equal sets are stored alike; throws BadUserInputError naming the first to fix.
 */
export function parseLabels(input: readonly Label[] | null | undefined, field = 'labels'): Label[] {
  const labels = input ?? [];
  if (labels.length > LABEL_LIMITS.count) throw new BadUserInputError(`${field} may have at most ${LABEL_LIMITS.count} entries`, field);
  const seen = new Set<string>();
  for (const { key, value } of labels) {
    const shown = key.slice(0, LABEL_LIMITS.keyLength + 1);
    if (key.length === 0 || key.length > LABEL_LIMITS.keyLength || !KEY.test(key)) {
      throw new BadUserInputError(
        `${field}: key "${shown}" must be 1 to ${LABEL_LIMITS.keyLength} characters, letters, digits, '.', '_', '/' or '-', starting with a letter or digit`,
        field,
      );
    }
    if (seen.has(key)) throw new BadUserInputError(`${field}: key "${key}" is given more than once`, field);
    seen.add(key);
    if (value.length > LABEL_LIMITS.valueLength || !isPlainText(value)) {
      throw new BadUserInputError(
        `${field}: the value of "${key}" must be at most ${LABEL_LIMITS.valueLength} characters of text without control characters`,
        field,
      );
    }
  }
  return [...labels].map(({ key, value }) => ({ key, value })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The labels as stored: one `key=value` string each. An array of scalars rather than an embedded
 * document, because FerretDB 1.24 pushes a top-level equality down to PostgreSQL (where a GIN index
 * serves it, an array matching when it contains the value) but drops any dotted path such as
 * `labels.team` from what it pushes down; on MongoDB one multikey index serves every key. A key never
 * contains `=`, so the first `=` splits the pair.
 */
export function labelPairs(labels: readonly Label[]): string[] {
  return labels.map(({ key, value }) => `${key}=${value}`);
}

/** The labels of stored pairs (labelPairs' inverse); none for a job stored before jobs had labels. */
export function labelsOf(pairs: readonly string[] | null | undefined): Label[] {
  return (pairs ?? []).map((pair) => {
    const at = pair.indexOf('=');
    return { key: pair.slice(0, at), value: pair.slice(at + 1) };
  });
}
