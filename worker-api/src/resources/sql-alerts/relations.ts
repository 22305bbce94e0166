import { and, asc, eq, inArray, or } from 'drizzle-orm';
import { ApiError } from '@cairn/core';
import { datasources, sqlSnippets, sqlSnippetUses } from '@cairn/db';
import type { Executor } from '@cairn/db/seed/audit';
import type { ServiceContext } from '../../lib/context.ts';
import { grantScope } from '../../auth/access.ts';
import { agentsOf } from '../datasources/links.ts';
import { showsCredentials } from '../../lib/datasource-access.ts';
import { serializeDatasource } from '../datasources/serialize.ts';
import { serializeSnippet } from '../sql-snippets/serialize.ts';

type Reader = ServiceContext['db'] | Executor;

/** Snippet ids used by each owner (alerts, or snippets for included snippets). */
export async function snippetsUsedBy(db: Reader, organizationId: string, ownerType: 'sql_alert' | 'sql_snippet', ownerIds: string[]) {
  const out = new Map<string, string[]>(ownerIds.map((id) => [id, []]));
  if (!ownerIds.length) return out;
  const rows = await db
    .select({ o: sqlSnippetUses.owner_id, s: sqlSnippetUses.sql_snippet_id })
    .from(sqlSnippetUses)
    .where(and(eq(sqlSnippetUses.organization_id, organizationId), eq(sqlSnippetUses.owner_type, ownerType), inArray(sqlSnippetUses.owner_id, ownerIds)))
    .orderBy(asc(sqlSnippetUses.sql_snippet_id));
  for (const r of rows) out.get(r.o)!.push(r.s);
  return out;
}

export async function includedSnippets(ctx: ServiceContext, ids: string[]) {
  if (!ids.length) return [];
  const org = ctx.principal.organizationId;
  const rows = await ctx.db
    .select()
    .from(sqlSnippets)
    .where(and(inArray(sqlSnippets.id, ids), eq(sqlSnippets.organization_id, org)))
    .orderBy(asc(sqlSnippets.name), asc(sqlSnippets.id));
  const uses = await snippetsUsedBy(
    ctx.db,
    org,
    'sql_snippet',
    rows.map((r) => r.id),
  );
  return rows.map((s) => serializeSnippet(ctx.baseUrl, s, uses.get(s.id)!));
}

/**
 * Included datasources: those the caller's View/Manage Datasources grants reach, and those its Manage
 * Dashboards grants reach (the other permission that allows the include) — a grant restricted to some
 * datasources reaches only those, one restricted to dashboards reaches none (an alert is on no
 * dashboard). Credentials as usual.
 */
export async function includedDatasources(ctx: ServiceContext, ids: string[]) {
  if (!ids.length) return [];
  const p = ctx.principal;
  const scope = and(
    eq(datasources.organization_id, p.organizationId),
    or(grantScope(p, 'view_datasources', { datasources: datasources.id }), grantScope(p, 'manage_dashboards', { datasources: datasources.id })),
  );
  const rows = await ctx.db
    .select()
    .from(datasources)
    .where(and(inArray(datasources.id, ids), scope))
    .orderBy(asc(datasources.name), asc(datasources.id));
  const agents = await agentsOf(
    ctx,
    rows.map((d) => d.id),
  );
  return rows.map((d) => serializeDatasource(ctx.baseUrl, d, agents.get(d.id)!, showsCredentials(p, d.id)));
}

/** The datasource an alert names must exist in the organization (422 otherwise). */
export async function checkDatasource(db: Reader, organizationId: string, id: string) {
  const [row] = await db
    .select({ id: datasources.id })
    .from(datasources)
    .where(and(eq(datasources.id, id), eq(datasources.organization_id, organizationId)))
    .limit(1);
  if (!row) {
    throw new ApiError('invalid_relationship', `No datasource with id "${id}" exists in this organization.`, {
      source: { pointer: '/data/relationships/datasource/data/id' },
    });
  }
}

/** Every snippet id must be a snippet of the organization (422 pointing at the first that is not). */
export async function checkSnippets(db: Reader, organizationId: string, ids: string[]) {
  if (!ids.length) return;
  const found = await db
    .select({ id: sqlSnippets.id })
    .from(sqlSnippets)
    .where(and(inArray(sqlSnippets.id, ids), eq(sqlSnippets.organization_id, organizationId)));
  const have = new Set(found.map((r) => r.id));
  const missing = ids.findIndex((id) => !have.has(id));
  if (missing >= 0) {
    throw new ApiError('invalid_relationship', `No SQL snippet with id "${ids[missing]}" exists in this organization.`, {
      source: { pointer: `/data/relationships/sql_snippets/data/${missing}/id` },
    });
  }
}

export async function replaceSnippets(tx: Executor, organizationId: string, alertId: string, ids: string[]) {
  await tx.delete(sqlSnippetUses).where(and(eq(sqlSnippetUses.owner_type, 'sql_alert'), eq(sqlSnippetUses.owner_id, alertId)));
  if (ids.length) {
    await tx
      .insert(sqlSnippetUses)
      .values(ids.map((s) => ({ organization_id: organizationId, owner_type: 'sql_alert' as const, owner_id: alertId, sql_snippet_id: s })));
  }
}
