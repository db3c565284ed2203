import type { ObjectId } from 'mongodb';
import type { RoleName } from './role.js';

/** The `apiKeys` collection's document. The secret itself is never stored, only its SHA-256. */
export interface ApiKeyDoc {
  _id: ObjectId;
  tenantId: string;
  name: string;
  role: RoleName;
  /** The first characters of the secret, shown so a tenant can recognise a key. */
  prefix: string;
  /** Hex SHA-256 of the whole secret; unique. */
  secretHash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}
