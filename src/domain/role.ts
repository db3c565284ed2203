/** A caller's role, from its token or API key: VIEWER < MEMBER < ADMIN (domain/identity.ts ranks them). */
export type RoleName = 'ADMIN' | 'MEMBER' | 'VIEWER';
