import { hasRole } from './identity.js';
import type { RoleName } from './role.js';

/** What a VIEWER reads in place of an HTTP target header's value (the header's name stays visible). */
export const HIDDEN_HEADER_VALUE = '<hidden>';

/**
 * An HTTP target header's value as a caller with `role` may read it. Header values are where a
 * target's credentials live (Authorization, API keys), so a read-only VIEWER sees only the names,
 * every value hidden alike (guessing which names hold secrets would miss some). MEMBER and ADMIN may
 * edit the job, so they read the values: an edit form sends the headers back as it read them.
 */
export function visibleHeaderValue(value: string, role: RoleName): string {
  return hasRole(role, 'MEMBER') ? value : HIDDEN_HEADER_VALUE;
}
