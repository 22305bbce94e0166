import type { Grant, Permission, RestrictableResourceType, Role } from '@cairn/core';
import { allows, ApiError, holdsAny } from '@cairn/core';

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

export function can(p: Principal, permission: Permission, resource?: { type: RestrictableResourceType; id: string }) {
  return allows(p.grants, permission, resource);
}

/** The one permission check: the first line of every service verb. */
export function requirePermission(
  p: Principal,
  permission: Permission,
  resource?: { type: RestrictableResourceType; id: string },
): void {
  if (!can(p, permission, resource)) {
    const what = resource ? ` on ${resource.type.replace(/s$/, '')} "${resource.id}"` : '';
    throw new ApiError('forbidden', `This ${p.kind === 'api_key' ? 'API key' : 'user'} lacks the ${label(permission)} permission${what}.`);
  }
}

export function canAny(p: Principal, permissions: readonly Permission[]): boolean {
  return holdsAny(p.grants, permissions);
}

const label = (p: Permission) => p.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ');

/**
 * API keys are managed by the organization's admins, signed in to the app (spec: "any admin can
 * create, update and delete API keys"). No key permission grants it, so a key can never mint keys.
 */
export function requireAdminUser(p: Principal): void {
  if (p.kind !== 'user' || p.role !== 'admin') {
    throw new ApiError('forbidden', p.kind === 'api_key'
      ? 'API keys cannot manage API keys; an admin does this in the app (Administration → API keys).'
      : 'Only admins can manage API keys.');
  }
}
