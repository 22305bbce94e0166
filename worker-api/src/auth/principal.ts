import type { Grant, GrantTarget, Permission, Role } from '@cairn/core';
import { allows, ApiError, holdsAny, ORGANIZATION } from '@cairn/core';

/**
 * Who is calling: a program with an API key, or a signed-in user of the web app (reaching the API
 * through the app's service binding). Both carry grants; every permission check goes through `can`.
 */
export type Principal =
  | { kind: 'api_key'; organizationId: string; apiKeyId: string; grants: Grant[] }
  | { kind: 'user'; organizationId: string; userId: string; role: Role; grants: Grant[]; sessionId: string };

export function actorOf(p: Principal): { actor_type: 'api_key' | 'user'; actor_id: string } {
  return p.kind === 'api_key' ? { actor_type: 'api_key', actor_id: p.apiKeyId } : { actor_type: 'user', actor_id: p.userId };
}

/** The one permission rule (core `allows`): see `grantReaches` for what a restricted grant reaches. */
export function can(p: Principal, permission: Permission, target?: GrantTarget) {
  return allows(p.grants, permission, target);
}

/** How a refusal names its target. */
function targetText(target: GrantTarget | undefined): string {
  if (target === undefined) return '';
  if (target === ORGANIZATION) return ' for the whole organization (a permission restricted to named resources does not reach organization-wide changes)';
  const list = Array.isArray(target) ? target : [target as Exclude<GrantTarget, typeof ORGANIZATION | readonly unknown[]>];
  return ` on ${list.map((r) => `${r.type === 'sql_alerts' ? 'SQL alert' : r.type.replace(/s$/, '')} "${r.id}"`).join(' and ')}`;
}

/** The one permission check: the first line of every service verb. */
export function requirePermission(p: Principal, permission: Permission, target?: GrantTarget): void {
  if (!can(p, permission, target)) {
    throw new ApiError('forbidden', `This ${p.kind === 'api_key' ? 'API key' : 'user'} lacks the ${label(permission)} permission${targetText(target)}.`);
  }
}

/**
 * The permission check of a call on one resource named by id (the rule of the API reference, "Errors"):
 * - a caller without the permission at all is refused with 403 naming it, whatever the id;
 * - otherwise a resource that does not exist, or that the caller may not see, is a 404 (restricted keys
 *   included: a refusal never names an id that does not exist or that the caller cannot see);
 * - and a resource the caller sees but may not act on this way is a 403.
 * `find` is the resource's visibility-scoped loader (it throws the 404); it runs only when the check
 * fails, so an allowed call costs nothing more.
 */
export async function requirePermissionOn(p: Principal, permission: Permission, target: GrantTarget, find: () => Promise<unknown>): Promise<void> {
  if (can(p, permission, target)) return;
  if (!holdsAny(p.grants, [permission])) requirePermission(p, permission);
  await find();
  requirePermission(p, permission, target);
}

export function canAny(p: Principal, permissions: readonly Permission[]): boolean {
  return holdsAny(p.grants, permissions);
}

const label = (p: Permission) =>
  p
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');

/**
 * API keys are managed by the organization's admins, signed in to the app (spec: "any admin can
 * create, update and delete API keys"). No key permission grants it, so a key can never mint keys.
 */
export function requireAdminUser(p: Principal): void {
  if (p.kind !== 'user' || p.role !== 'admin') {
    throw new ApiError(
      'forbidden',
      p.kind === 'api_key' ? 'API keys cannot manage API keys; an admin does this in the app (Administration → API keys).' : 'Only admins can manage API keys.',
    );
  }
}
