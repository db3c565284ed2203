import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';

/** Documents per insertMany: one large insert on a busy FerretDB can outlast the socket timeout, and then it fails again and again; a chunk that lands stays landed. */
const WRITE_CHUNK = 100;

/**
 * Inserts `docs` in chunks of insertMany (unordered), a duplicate of a unique key meaning the
 * document is there already: returns the indexes, in `docs`, of those that were. Any other write
 * error is thrown.
 */
export async function insertNew<T extends Document>(collection: Collection<T>, docs: OptionalUnlessRequiredId<T>[]): Promise<Set<number>> {
  const duplicates = new Set<number>();
  for (let start = 0; start < docs.length; start += WRITE_CHUNK) {
    try {
      await collection.insertMany(docs.slice(start, start + WRITE_CHUNK), { ordered: false });
    } catch (error) {
      const writeErrors = (error as { writeErrors?: { index: number; code: number }[] | { index: number; code: number } }).writeErrors;
      const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
      if (list.length === 0 || list.some((e) => e.code !== 11000)) throw error;
      for (const e of list) duplicates.add(start + e.index);
    }
  }
  return duplicates;
}
