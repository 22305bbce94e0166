import { and, eq, inArray, type SQL } from 'drizzle-orm';
import { BUILT_IN_VARIABLES } from '@cairn/core';
import { sqlReferences } from '@cairn/core/sql/references';
import { sqlSnippets, sqlSnippetUses } from '@cairn/db';
import type { PooledDb } from '../../lib/db.ts';
import type { Db } from '@cairn/db';

type SnippetLite = { id: string; name: string; text: string; params: string[] | null };

/**
 * What SQL refers to, read by the SQL compiler's own walker (core `sqlReferences`), so saving and
 * running agree on the syntax: filter variables and the snippets called. `direct` lists only the
 * snippets the text itself calls (their bodies are not followed); otherwise variables and snippets of
 * every snippet reached are included. `params`: the text is a snippet's body with these parameters.
 * SQL the compiler refuses (a snippet cycle, a wrong argument count, a positional `$1`…) is read
 * without following snippets, and, if that fails too, refers to nothing: it cannot run either.
 */
export function readReferences(
  sql: string,
  snippets: readonly Omit<SnippetLite, 'id'>[],
  opts: { direct?: boolean; params?: readonly string[] } = {},
): { variables: string[]; snippets: string[] } {
  const shallow = snippets.map((s) => ({ name: s.name, text: '', params: s.params }));
  for (const defs of opts.direct ? [shallow] : [snippets, shallow]) {
    try {
      const refs = sqlReferences(sql, { snippets: defs, params: opts.params });
      return { variables: refs.variables, snippets: refs.snippets };
    } catch {
      // Try the next, shallower reading.
    }
  }
  return { variables: [], snippets: [] };
}

/** Variables that need a filter definition (the built-ins do not). */
export const customVariables = (vars: readonly string[]) => vars.filter((v) => !(BUILT_IN_VARIABLES as readonly string[]).includes(v));

/** The organization's snippets as the walker reads them. */
export async function organizationSnippets(db: PooledDb | Db, organizationId: string): Promise<SnippetLite[]> {
  return db
    .select({ id: sqlSnippets.id, name: sqlSnippets.name, text: sqlSnippets.text, params: sqlSnippets.params })
    .from(sqlSnippets)
    .where(eq(sqlSnippets.organization_id, organizationId));
}

/**
 * The snippets a SQL text uses directly (existing names only) and the variables of the SQL together
 * with those of every snippet it reaches, nested ones included.
 */
export async function analyzeSql(db: PooledDb | Db, organizationId: string, sql: string) {
  const all = await organizationSnippets(db, organizationId);
  const byName = new Map(all.map((s) => [s.name, s.id]));
  const direct = readReferences(sql, all, { direct: true }).snippets;
  const { variables } = readReferences(sql, all);
  return {
    snippetIds: direct
      .map((n) => byName.get(n)!)
      .filter(Boolean)
      .sort(),
    variables,
  };
}

type Executor = Pick<Db, 'delete' | 'insert'>;

/** Replaces the recorded snippet uses of one owner. */
export async function recordSnippetUses(
  tx: Executor,
  organizationId: string,
  ownerType: 'report' | 'filter' | 'sql_snippet',
  ownerId: string,
  snippetIds: readonly string[],
) {
  await tx
    .delete(sqlSnippetUses)
    .where(and(eq(sqlSnippetUses.organization_id, organizationId), eq(sqlSnippetUses.owner_type, ownerType), eq(sqlSnippetUses.owner_id, ownerId)));
  if (snippetIds.length) {
    await tx.insert(sqlSnippetUses).values(
      [...new Set(snippetIds)].map((sql_snippet_id) => ({
        organization_id: organizationId,
        owner_type: ownerType,
        owner_id: ownerId,
        sql_snippet_id,
      })),
    );
  }
}

/** Snippet ids each owner of a type uses, sorted (for relationship linkage). */
export async function snippetUsesOf(db: PooledDb, organizationId: string, ownerType: string, ownerIds: string[]) {
  const out = new Map<string, string[]>(ownerIds.map((id) => [id, []]));
  if (!ownerIds.length) return out;
  const where: SQL = and(
    eq(sqlSnippetUses.organization_id, organizationId),
    eq(sqlSnippetUses.owner_type, ownerType as 'report'),
    inArray(sqlSnippetUses.owner_id, ownerIds),
  )!;
  const rows = await db
    .select({ o: sqlSnippetUses.owner_id, s: sqlSnippetUses.sql_snippet_id })
    .from(sqlSnippetUses)
    .where(where)
    .orderBy(sqlSnippetUses.sql_snippet_id);
  for (const r of rows) out.get(r.o)?.push(r.s);
  return out;
}
