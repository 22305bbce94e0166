import { and, eq, inArray } from 'drizzle-orm';
import type { ResourceObject } from '@cairn/core';
import { sqlSnippets } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { snippetUsesOf } from './references.ts';
import { serializeSnippet } from './serialize.ts';

type SnippetRow = typeof sqlSnippets.$inferSelect;

export async function serializeSnippets(ctx: ServiceContext, rows: SnippetRow[]): Promise<ResourceObject[]> {
  const uses = await snippetUsesOf(
    ctx.db,
    ctx.principal.organizationId,
    'sql_snippet',
    rows.map((r) => r.id),
  );
  return rows.map((s) => serializeSnippet(ctx.baseUrl, s, uses.get(s.id) ?? []));
}

/** Snippets by id, in the order of `ids` (for `included`). */
export async function loadSnippets(ctx: ServiceContext, ids: string[]): Promise<ResourceObject[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const rows = await ctx.db
    .select()
    .from(sqlSnippets)
    .where(and(eq(sqlSnippets.organization_id, ctx.principal.organizationId), inArray(sqlSnippets.id, unique)));
  rows.sort((a, b) => unique.indexOf(a.id) - unique.indexOf(b.id));
  return serializeSnippets(ctx, rows);
}
