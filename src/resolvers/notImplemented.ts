import { NotImplementedError } from '../errors/index.js';

/** For contract operations that exist in the schema but are built by a later issue. */
export function notImplemented(operation: string): never {
  throw new NotImplementedError(operation);
}
