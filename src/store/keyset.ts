import type { Filter } from 'mongodb';
import type { PageRequest } from '../pagination/pageRequest.js';
import type { CursorPosition } from '../pagination/cursor.js';

/**
 * Keyset conditions for a list sorted by `(field, _id)` descending: rows strictly after the `after`
 * cursor (older) and strictly before the `before` cursor (newer). New rows never shift a page.
 */
export function keysetFilter<T>(field: string, page: PageRequest): Filter<T>[] {
  const conditions: Filter<T>[] = [];
  const older = (c: CursorPosition) => ({ $or: [{ [field]: { $lt: c.at } }, { [field]: c.at, _id: { $lt: c.id } }] });
  const newer = (c: CursorPosition) => ({ $or: [{ [field]: { $gt: c.at } }, { [field]: c.at, _id: { $gt: c.id } }] });
  if (page.after) conditions.push(older(page.after) as Filter<T>);
  if (page.before) conditions.push(newer(page.before) as Filter<T>);
  return conditions;
}
