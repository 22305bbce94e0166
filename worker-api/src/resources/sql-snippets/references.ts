import { and, eq, inArray, type SQL } from 'drizzle-orm';
import { sqlSnippets, sqlSnippetUses } from '@cairn/db';
import type { PooledDb } from '../../lib/db.ts';
import type { Db } from '@cairn/db';

/**
 * What a piece of SQL refers to: filter variables (`{[expr]=var}`, `{col=var.previous}`,
 * `{[expr]:var}`, `{var.start|end|value}`, `{aggregation}`) and snippet names (`[name]`,
 * `[name(args)]`). Text inside string literals, quoted identifiers and comments is skipped, and the
 * bracketed expression of a filter token is not a snippet.
 *
 * A local reader until the SQL compiler exports its own variable extraction (`usedVariables`);
 * it follows the syntax of ARCHITECTURE/contracts "SQL parameter syntax".
 */
export const BUILT_IN_VARIABLES = ['timerange', 'aggregation'] as const;

const VAR = '[A-Za-z_][\\w-]*';
const CONDITION = new RegExp(`\\{\\s*(?:\\[[^\\]\\n]+\\]|[A-Za-z_][\\w.]*)\\s*[=:]\\s*(${VAR})(?:\\.(?:previous|next))?\\s*\\}`, 'y');
const VALUE = new RegExp(`\\{\\s*(${VAR})\\.(?:start|end|value)\\s*\\}|\\{\\s*(aggregation)\\s*\\}`, 'y');
const SNIPPET = /\[\s*([A-Za-z_]\w*)\s*[(\]]/y;

/** Index just past a literal, quoted identifier or comment starting at i (i itself when none does). */
function skipLiteral(sql: string, i: number): number {
  const ch = sql[i];
  if (ch === "'" || ch === '"' || ch === '`') {
    let j = i + 1;
    while (j < sql.length) {
      if (sql[j] === ch) {
        if (sql[j + 1] === ch) j += 2;
        else return j + 1;
      } else if (sql[j] === '\\' && ch === "'") j += 2;
      else j++;
    }
    return sql.length;
  }
  if (ch === '-' && sql[i + 1] === '-') {
    const nl = sql.indexOf('\n', i);
    return nl === -1 ? sql.length : nl;
  }
  if (ch === '/' && sql[i + 1] === '*') {
    const end = sql.indexOf('*/', i + 2);
    return end === -1 ? sql.length : end + 2;
  }
  return i;
}

export function sqlReferences(sql: string): { variables: string[]; snippets: string[] } {
  const variables = new Set<string>();
  const snippets = new Set<string>();
  let i = 0;
  while (i < sql.length) {
    const skip = skipLiteral(sql, i);
    if (skip > i) {
      i = skip;
      continue;
    }
    const ch = sql[i];
    if (ch === '{') {
      let m: RegExpExecArray | null = null;
      for (const re of [CONDITION, VALUE]) {
        re.lastIndex = i;
        m = re.exec(sql);
        if (m) break;
      }
      if (m) {
        variables.add((m[1] ?? m[2])!);
        i += m[0].length;
        continue;
      }
    } else if (ch === '[') {
      SNIPPET.lastIndex = i;
      const m = SNIPPET.exec(sql);
      if (m) snippets.add(m[1]!);
    }
    i++;
  }
  return { variables: [...variables], snippets: [...snippets] };
}

/** Variables that need a filter definition (the built-ins do not). */
export const customVariables = (vars: readonly string[]) =>
  vars.filter((v) => !(BUILT_IN_VARIABLES as readonly string[]).includes(v));

type SnippetLite = { id: string; name: string; text: string };

/**
 * The snippets a SQL text uses directly (existing names only) and the variables of the SQL together
 * with those of every snippet it reaches, nested ones included (cycles are not followed twice).
 */
export async function analyzeSql(db: PooledDb | Db, organizationId: string, sql: string) {
  const refs = sqlReferences(sql);
  const variables = new Set(refs.variables);
  const seen = new Map<string, SnippetLite>();
  let direct: SnippetLite[] = [];
  let names = refs.snippets;
  for (let depth = 0; names.length && depth < 12; depth++) {
    const rows = await db.select({ id: sqlSnippets.id, name: sqlSnippets.name, text: sqlSnippets.text }).from(sqlSnippets)
      .where(and(eq(sqlSnippets.organization_id, organizationId), inArray(sqlSnippets.name, names)));
    if (depth === 0) direct = rows;
    const fresh = rows.filter((r) => !seen.has(r.id));
    const next = new Set<string>();
    for (const r of fresh) {
      seen.set(r.id, r);
      const inner = sqlReferences(r.text);
      inner.variables.forEach((v) => variables.add(v));
      inner.snippets.forEach((n) => next.add(n));
    }
    names = [...next].filter((n) => ![...seen.values()].some((s) => s.name === n));
  }
  return { snippetIds: direct.map((s) => s.id).sort(), variables: [...variables] };
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
  await tx.delete(sqlSnippetUses).where(and(
    eq(sqlSnippetUses.organization_id, organizationId), eq(sqlSnippetUses.owner_type, ownerType), eq(sqlSnippetUses.owner_id, ownerId),
  ));
  if (snippetIds.length) {
    await tx.insert(sqlSnippetUses).values([...new Set(snippetIds)].map((sql_snippet_id) => ({
      organization_id: organizationId, owner_type: ownerType, owner_id: ownerId, sql_snippet_id,
    })));
  }
}

/** Snippet ids each owner of a type uses, sorted (for relationship linkage). */
export async function snippetUsesOf(db: PooledDb, organizationId: string, ownerType: string, ownerIds: string[]) {
  const out = new Map<string, string[]>(ownerIds.map((id) => [id, []]));
  if (!ownerIds.length) return out;
  const where: SQL = and(
    eq(sqlSnippetUses.organization_id, organizationId), eq(sqlSnippetUses.owner_type, ownerType as 'report'),
    inArray(sqlSnippetUses.owner_id, ownerIds),
  )!;
  const rows = await db.select({ o: sqlSnippetUses.owner_id, s: sqlSnippetUses.sql_snippet_id }).from(sqlSnippetUses)
    .where(where).orderBy(sqlSnippetUses.sql_snippet_id);
  for (const r of rows) out.get(r.o)?.push(r.s);
  return out;
}
