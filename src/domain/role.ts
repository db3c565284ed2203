/** Every role, in the order the GraphQL enum `Role` lists them (the schema registers this list). */
export const ROLE_NAMES = ['ADMIN', 'MEMBER', 'VIEWER'] as const;
/** A caller's role, from its token or API key: VIEWER < MEMBER < ADMIN (domain/identity.ts ranks them). */
export type RoleName = (typeof ROLE_NAMES)[number];
