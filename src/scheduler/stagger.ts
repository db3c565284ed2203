import type { ObjectId } from 'mongodb';

/**
 * A fraction in [0, 1) fixed for a job (FNV-1a of its id, mixed by murmur3's finaliser so that ids
 * one apart land far apart): the sweep materialises each job a
 * different share further ahead, so jobs created together (consecutive ids) stop advancing in the
 * same pass and their occurrences are inserted a few at a time instead of in one large burst.
 */
export function staggerFraction(id: ObjectId): number {
  let hash = 0x811c9dc5;
  for (const byte of id.id) hash = Math.imul(hash ^ byte, 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return ((hash ^ (hash >>> 16)) >>> 0) / 2 ** 32;
}
