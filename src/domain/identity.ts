import type { RoleName } from './role.js';

/** Who the token says the caller is. The tenant always comes from here, never from an argument. */
export interface Identity {
  tenantId: string;
  subject: string;
  role: RoleName;
  /** The global id of the API key the caller authenticated with; absent for a JWT (whose subject could be any string). */
  apiKeyId?: string;
}

/** A verified bearer token: who it names, and until when it may be used (null: no expiry, as for API keys). */
export interface Credential {
  identity: Identity;
  validUntil: Date | null;
}

const RANK: Record<RoleName, number> = { VIEWER: 0, MEMBER: 1, ADMIN: 2 };

/** True when `role` is at least `required` (VIEWER < MEMBER < ADMIN). */
export function hasRole(role: RoleName, required: RoleName): boolean {
  return RANK[role] >= RANK[required];
}
