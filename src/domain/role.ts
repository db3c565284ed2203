/** A caller's role, from its token or API key: VIEWER < MEMBER < ADMIN (auth/identity.ts ranks them). */
export type RoleName = 'ADMIN' | 'MEMBER' | 'VIEWER';
