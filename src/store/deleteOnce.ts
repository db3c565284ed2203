import type { Collection, Document, Filter, WithId } from 'mongodb';

/**
 * Deletes the one document `filter` names and returns it as it was, or null when there was none or
 * a concurrent caller deleted it first: read, then deleteOne, whose count decides. FerretDB's
 * findOneAndDelete answers two concurrent callers with the same document, so each would act on a
 * delete that happened once (release a job slot twice, record a change twice).
 */
export async function deleteOnce<T extends Document>(collection: Collection<T>, filter: Filter<T>): Promise<WithId<T> | null> {
  const found = await collection.findOne(filter);
  if (!found) return null;
  const { deletedCount } = await collection.deleteOne(filter);
  return deletedCount === 1 ? found : null;
}
