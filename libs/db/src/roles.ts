import type { Role } from './generated/prisma/client.js';

/** The roles, least first: each includes what the ones before it may do. */
export const ROLES = ['viewer', 'operator', 'admin'] as const satisfies readonly Role[];

/** Whether `role` may do what `needed` may. */
export function roleAtLeast(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** The strongest of some roles (null for none). */
export function strongestRole(roles: Iterable<Role>): Role | null {
  let best: Role | null = null;
  for (const role of roles) if (best === null || roleAtLeast(role, best)) best = role;
  return best;
}
