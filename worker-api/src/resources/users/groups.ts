import { and, eq, inArray, or } from 'drizzle-orm';
import { ApiError } from '@cairn/core';
import { userGroups } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';

const BUILT_IN_ALIASES = ['all_users', 'all_analysts'] as const;

/**
 * Resolves group ids (or the built-in aliases all_users / all_analysts) of the caller's organization.
 * Returns the explicit groups only: built-in groups keep their members by rule, so naming them adds
 * nothing. An unknown id is a 422 pointing at it.
 */
export async function explicitGroupIds(ctx: ServiceContext, ids: string[], pointer: (i: number) => string): Promise<string[]> {
  if (!ids.length) return [];
  const aliases = ids.filter((id) => (BUILT_IN_ALIASES as readonly string[]).includes(id));
  const rows = await ctx.db
    .select({ id: userGroups.id, builtIn: userGroups.built_in_behavior })
    .from(userGroups)
    .where(
      and(
        eq(userGroups.organization_id, ctx.principal.organizationId),
        or(inArray(userGroups.id, ids), ...(aliases.length ? [inArray(userGroups.built_in_behavior, aliases as ('all_users' | 'all_analysts')[])] : [])),
      ),
    );
  const known = new Map(rows.map((r) => [r.id, r.builtIn]));
  const bad = ids.findIndex((id) => !known.has(id) && !aliases.includes(id));
  if (bad >= 0) {
    throw new ApiError('invalid_relationship', `No user group with id "${ids[bad]}" exists in this organization.`, { source: { pointer: pointer(bad) } });
  }
  return [...new Set(ids.filter((id) => known.has(id) && !known.get(id)))];
}
