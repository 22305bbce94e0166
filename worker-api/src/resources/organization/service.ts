import { and, count, eq, isNull, inArray } from 'drizzle-orm';
import { ApiError, ORGANIZATION } from '@cairn/core';
import { datasources, organizations, users } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { requirePermission, type Principal } from '../../auth/principal.ts';
import { audit, changed } from '../../lib/audit.ts';
import { serializeOrganization } from './serialize.ts';
import { organizationSshKey } from '@cairn/db/ssh-key';

/**
 * Changing the organization is an admin's job in the app: no API key permission grants it (the
 * permission vocabulary has none for the organization), the same rule as for API keys.
 */
function requireAdminSession(p: Principal): void {
  if (p.kind !== 'user' || p.role !== 'admin') {
    throw new ApiError(
      'forbidden',
      p.kind === 'api_key'
        ? 'API keys cannot change the organization; an admin does this in the app (Administration → Organization).'
        : 'Only admins can change the organization’s settings.',
    );
  }
}

/** Seats in use: analysts and admins who are not deactivated (pending invitations hold one too). */
async function usage(ctx: ServiceContext) {
  const org = ctx.principal.organizationId;
  const [[a], [d]] = await Promise.all([
    ctx.db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.organization_id, org), inArray(users.role, ['analyst', 'admin']), isNull(users.deactivated_at))),
    ctx.db
      .select({ n: count() })
      .from(datasources)
      .where(and(eq(datasources.organization_id, org), eq(datasources.is_sample, false))),
  ]);
  return { analysts: a?.n ?? 0, datasources: d?.n ?? 0 };
}

/**
 * GET /organization: the caller's organization with its plan limits and their use. Needs Manage
 * Users (admins hold it; a key with it can check seats before inviting).
 */
export async function getOrganization({ ctx }: { ctx: ServiceContext }) {
  requirePermission(ctx.principal, 'manage_users', ORGANIZATION);
  const [[row], use, sshKey] = await Promise.all([
    ctx.db.select().from(organizations).where(eq(organizations.id, ctx.principal.organizationId)).limit(1),
    usage(ctx),
    // Made on first use (D51): organizations that never asked have none yet.
    organizationSshKey(ctx.db, ctx.principal.organizationId, ctx.env.SECRET_KEY),
  ]);
  // The caller was authenticated against this organization a moment ago; it cannot be missing.
  if (!row) throw new ApiError('not_found', 'The organization no longer exists.');
  return serializeOrganization(ctx.baseUrl, row, use, sshKey.publicKey);
}

/** PATCH /organization: name and time zone, only the attributes sent. */
export async function updateOrganization({ ctx, input: attrs }: { ctx: ServiceContext; input: { name?: string; time_zone?: string } }) {
  requireAdminSession(ctx.principal);
  if (Object.keys(attrs).length) {
    await ctx.db
      .update(organizations)
      .set({ ...attrs, updated_at: new Date() })
      .where(eq(organizations.id, ctx.principal.organizationId));
    await audit(ctx, 'update', 'organizations', ctx.principal.organizationId, changed(attrs));
  }
  return getOrganization({ ctx });
}
