import { ObjectId } from 'mongodb';
import { BadUserInputError } from '../errors/index.js';

/** A keyset position: the sort value and the `_id` tie-breaker of the last item seen. */
export interface CursorPosition {
  at: Date;
  id: ObjectId;
}

/** Opaque cursor: base64url of `<epoch ms>:<hex id>`. Keyset cursors stay correct while rows are inserted. */
export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(`${position.at.getTime()}:${position.id.toHexString()}`).toString('base64url');
}

export function decodeCursor(cursor: string, argument: string): CursorPosition {
  const decoded = typeof cursor === 'string' && cursor.length <= 100 ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^(-?\d{1,15}):([0-9a-f]{24})$/.exec(decoded);
  if (!match) throw new BadUserInputError(`${argument} is not a cursor returned by this API`, argument);
  return { at: new Date(Number(match[1])), id: new ObjectId(match[2]) };
}
