import { ObjectId } from 'mongodb';

export type NodeType = 'Job' | 'Execution' | 'ApiKey' | 'BulkOperation' | 'Alert' | 'AlertRule' | 'AlertChannel' | 'Change';

/** Opaque Relay global id: base64url of `<Type>:<hex ObjectId>`. */
export function toGlobalId(type: NodeType, id: ObjectId | string): string {
  return Buffer.from(`${type}:${id.toString()}`).toString('base64url');
}

/** Decodes a global id; null when it is malformed or of another type (the caller then answers NOT_FOUND). */
export function fromGlobalId(globalId: string, expected?: NodeType): { type: NodeType; id: ObjectId } | null {
  if (typeof globalId !== 'string' || globalId.length > 100) return null;
  const decoded = Buffer.from(globalId, 'base64url').toString('utf8');
  const match = /^(Job|Execution|ApiKey|BulkOperation|Alert|AlertRule|AlertChannel|Change):([0-9a-f]{24})$/.exec(decoded);
  if (!match) return null;
  const type = match[1] as NodeType;
  if (expected && type !== expected) return null;
  // base64 decoding skips stray characters; only the canonical spelling of an id is accepted.
  if (toGlobalId(type, match[2]) !== globalId) return null;
  return { type, id: new ObjectId(match[2]) };
}
