import { and, asc, count, eq, inArray, ne, sql } from 'drizzle-orm';
import { ApiError, newId, notFound, ORGANIZATION, type ResourceObject } from '@cairn/core';
import { dashboards, filters, reports, sqlAlerts, sqlSnippets, sqlSnippetUses, type Db } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import type { ResourceBody } from '../../lib/resource-body.ts';
import { requirePermission } from '../../auth/principal.ts';
import { changed } from '../../lib/audit.ts';
import { withTransaction } from '../../lib/transaction.ts';
import { offsetOf, type ListQuery } from '../../lib/jsonapi.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';
import { includedDatasources, requireDatasourceInclude, requireDatasourceUse } from '../../lib/datasource-use.ts';
import { linked } from '../../lib/include.ts';
import { checkSnippetGraph, type SnippetNode } from './graph.ts';
import { loadSnippets, serializeSnippets } from './load.ts';
import { readReferences, recordSnippetUses } from './references.ts';
import type { snippetBody } from './schema.ts';

type Body = ResourceBody<typeof snippetBody.attributes.shape>;
type Page = ListQuery;

/** filter[name] and sort of GET /sql_snippets. */
export const SNIPPET_LIST: ListSpec = {
  name: [sqlSnippets.name],
  sorts: { name: sqlSnippets.name, created_at: sqlSnippets.created_at, updated_at: sqlSnippets.updated_at },
  order: [asc(sqlSnippets.name)],
  id: sqlSnippets.id,
};
type SnippetRow = typeof sqlSnippets.$inferSelect;
type Tx = Pick<Db, 'execute' | 'select' | 'insert' | 'delete' | 'update'>;

const inOrg = (ctx: ServiceContext) => eq(sqlSnippets.organization_id, ctx.principal.organizationId);

async function findSnippet(ctx: ServiceContext, id: string): Promise<SnippetRow> {
  const [row] = await ctx.db
    .select()
    .from(sqlSnippets)
    .where(and(eq(sqlSnippets.id, id), inOrg(ctx)))
    .limit(1);
  if (!row) throw notFound('sql snippet', id);
  return row;
}

async function included(ctx: ServiceContext, data: ResourceObject[], include: Set<string>) {
  const own = new Set(data.map((d) => d.id));
  const parts = await Promise.all([
    include.has('datasource') ? includedDatasources(ctx, linked(data, 'datasource')) : [],
    include.has('sql_snippets')
      ? loadSnippets(
          ctx,
          linked(data, 'sql_snippets').filter((id) => !own.has(id)),
        )
      : [],
  ]);
  return parts.flat();
}

export async function listSnippets({ ctx, page, include }: { ctx: ServiceContext; page: Page; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_dashboards');
  requireDatasourceInclude(ctx, include);
  const where = and(inOrg(ctx), nameFilter(SNIPPET_LIST, page));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(sqlSnippets)
      .where(where)
      .orderBy(...listOrder(SNIPPET_LIST, page))
      .limit(page.size)
      .offset(offsetOf(page)),
    ctx.db.select({ n: count() }).from(sqlSnippets).where(where),
  ]);
  const data = await serializeSnippets(ctx, rows);
  return { data, included: include.size ? await included(ctx, data, include) : [], total: total?.n ?? 0 };
}

export async function getSnippet({ ctx, id, include }: { ctx: ServiceContext; id: string; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_dashboards');
  requireDatasourceInclude(ctx, include);
  const [data] = await serializeSnippets(ctx, [await findSnippet(ctx, id)]);
  return { data: data!, included: include.size ? await included(ctx, [data!], include) : [] };
}

/**
 * Everything the write must hold, checked inside the transaction that makes it, under a lock per
 * organization (so two writers cannot both take a name, or each close half of a cycle): the name is
 * free, the listed snippets exist, and no cycle or too-deep chain appears. Returns the uses to record:
 * the snippets named in the text plus the explicitly related ones.
 */
async function plan(tx: Tx, org: string, self: { id: string; name: string; text: string; params: string[]; explicit: string[] }) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`sql-snippets:${org}`}))`);
  const all = await tx
    .select({ id: sqlSnippets.id, name: sqlSnippets.name, text: sqlSnippets.text, params: sqlSnippets.params })
    .from(sqlSnippets)
    .where(eq(sqlSnippets.organization_id, org));
  const clash = all.find((s) => s.id !== self.id && s.name.toLowerCase() === self.name.toLowerCase());
  if (clash) {
    throw new ApiError('conflict', `A snippet named "${clash.name}" already exists (${clash.id}); snippet names are unique, ignoring case.`, {
      source: { pointer: '/data/attributes/name' },
    });
  }
  const known = new Set(all.map((s) => s.id));
  const missing = self.explicit.findIndex((id) => !known.has(id) || id === self.id);
  if (missing >= 0) {
    const id = self.explicit[missing]!;
    throw new ApiError(
      'invalid_relationship',
      id === self.id ? 'A snippet cannot use itself.' : `No sql snippet with id "${id}" exists in this organization.`,
      {
        source: { pointer: `/data/relationships/sql_snippets/data/${missing}/id` },
      },
    );
  }
  const byName = new Map(all.filter((s) => s.id !== self.id).map((s) => [s.name, s.id]));
  byName.set(self.name, self.id);
  // Each text is read as the body of its snippet (its own {{params}}), without following the snippets it calls.
  const defs = [...all.filter((s) => s.id !== self.id), self];
  const refs = (text: string, params: string[]) =>
    readReferences(text, defs, { direct: true, params })
      .snippets.map((n) => byName.get(n))
      .filter((x): x is string => !!x);
  const recorded = await tx
    .select({ o: sqlSnippetUses.owner_id, s: sqlSnippetUses.sql_snippet_id })
    .from(sqlSnippetUses)
    .where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.owner_type, 'sql_snippet')));
  const nodes = new Map<string, SnippetNode>();
  for (const s of all.filter((x) => x.id !== self.id)) {
    nodes.set(s.id, { id: s.id, name: s.name, uses: [...new Set([...refs(s.text, s.params), ...recorded.filter((r) => r.o === s.id).map((r) => r.s)])] });
  }
  const uses = [...new Set([...refs(self.text, self.params), ...self.explicit])];
  nodes.set(self.id, { id: self.id, name: self.name, uses });
  checkSnippetGraph(nodes, self.id);
  return uses;
}

/** SQL snippets are the organization's shared definitions: creating, changing and deleting them needs unrestricted Manage Dashboards. */
export async function createSnippet({ ctx, input: body }: { ctx: ServiceContext; input: Body }) {
  requirePermission(ctx.principal, 'manage_dashboards', ORGANIZATION);
  const datasourceId = body.relationships.datasource as string | null | undefined;
  if (datasourceId) await requireDatasourceUse(ctx, datasourceId, '/data/relationships/datasource/data/id', { requireEnabled: false });
  const id = newId('sql_snippet');
  const org = ctx.principal.organizationId;
  const a = body.attributes;
  await withTransaction(ctx, async ({ tx, audit }) => {
    const uses = await plan(tx, org, {
      id,
      name: a.name!,
      text: a.text!,
      params: a.params ?? [],
      explicit: (body.relationships.sql_snippets as string[] | undefined) ?? [],
    });
    await tx.insert(sqlSnippets).values({ ...a, id, organization_id: org, name: a.name!, text: a.text!, datasource_id: datasourceId ?? null });
    await recordSnippetUses(tx, org, 'sql_snippet', id, uses);
    await audit('create', 'sql_snippets', id, changed(body.attributes, body.relationships));
  });
  return getSnippet({ ctx, id, include: new Set() });
}

export async function updateSnippet({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: Body }) {
  requirePermission(ctx.principal, 'manage_dashboards', ORGANIZATION);
  const datasourceId = body.relationships.datasource as string | null | undefined;
  if (datasourceId) await requireDatasourceUse(ctx, datasourceId, '/data/relationships/datasource/data/id', { requireEnabled: false });
  const org = ctx.principal.organizationId;
  const a = body.attributes;
  const explicitSent = body.relationships.sql_snippets as string[] | undefined;
  await withTransaction(ctx, async ({ tx, audit }) => {
    const [current] = await tx
      .select()
      .from(sqlSnippets)
      .where(and(eq(sqlSnippets.id, id), eq(sqlSnippets.organization_id, org)))
      .for('update');
    if (!current) throw notFound('sql snippet', id);
    const reshaped = a.name !== undefined || a.text !== undefined || explicitSent !== undefined;
    if (reshaped) {
      // Without a new list, the explicit uses are the recorded ones the old text did not explain.
      const before = await tx
        .select({ s: sqlSnippetUses.sql_snippet_id, name: sqlSnippets.name })
        .from(sqlSnippetUses)
        .innerJoin(sqlSnippets, eq(sqlSnippets.id, sqlSnippetUses.sql_snippet_id))
        .where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.owner_type, 'sql_snippet'), eq(sqlSnippetUses.owner_id, id)));
      const known = await tx
        .select({ name: sqlSnippets.name, text: sqlSnippets.text, params: sqlSnippets.params })
        .from(sqlSnippets)
        .where(eq(sqlSnippets.organization_id, org));
      const oldRefs = new Set(readReferences(current.text, known, { direct: true, params: current.params }).snippets);
      const explicit = explicitSent ?? before.filter((u) => !oldRefs.has(u.name)).map((u) => u.s);
      const uses = await plan(tx, org, { id, name: a.name ?? current.name, text: a.text ?? current.text, params: a.params ?? current.params, explicit });
      await recordSnippetUses(tx, org, 'sql_snippet', id, uses);
    }
    // Only the attributes sent are written, so concurrent updates of different fields both survive.
    await tx
      .update(sqlSnippets)
      .set({ ...a, ...(datasourceId !== undefined ? { datasource_id: datasourceId } : {}), updated_at: new Date() })
      .where(and(eq(sqlSnippets.id, id), eq(sqlSnippets.organization_id, org)));
    await audit('update', 'sql_snippets', id, changed(body.attributes, body.relationships));
  });
  return getSnippet({ ctx, id, include: new Set() });
}

/** Names of whatever still uses a snippet (recorded uses, and other snippets whose text names it). */
async function usersOf(tx: Tx, org: string, snippet: SnippetRow): Promise<string[]> {
  const uses = await tx
    .select({ type: sqlSnippetUses.owner_type, id: sqlSnippetUses.owner_id })
    .from(sqlSnippetUses)
    .where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.sql_snippet_id, snippet.id), ne(sqlSnippetUses.owner_id, snippet.id)));
  const ids = (type: string) => uses.filter((u) => u.type === type).map((u) => u.id);
  const named = async <T extends { id: string; label: string }>(type: string, q: (ids: string[]) => Promise<T[]>) =>
    ids(type).length ? (await q(ids(type))).map((r) => `${type.replace('_', ' ')} "${r.label}" (${r.id})`) : [];
  const others = await tx
    .select({ id: sqlSnippets.id, label: sqlSnippets.name, text: sqlSnippets.text, params: sqlSnippets.params })
    .from(sqlSnippets)
    .where(and(eq(sqlSnippets.organization_id, org), ne(sqlSnippets.id, snippet.id)));
  const defs = [snippet, ...others.map((s) => ({ name: s.label, text: s.text, params: s.params }))];
  const byText = others.filter(
    (s) => readReferences(s.text, defs, { direct: true, params: s.params }).snippets.includes(snippet.name) && !ids('sql_snippet').includes(s.id),
  );
  const lists = await Promise.all([
    named('report', (x) =>
      tx
        .select({ id: reports.id, label: reports.name })
        .from(reports)
        .where(and(eq(reports.organization_id, org), inArray(reports.id, x))),
    ),
    named('filter', (x) =>
      tx
        .select({ id: filters.id, label: filters.variable_name })
        .from(filters)
        .where(and(eq(filters.organization_id, org), inArray(filters.id, x))),
    ),
    named('sql_snippet', (x) =>
      tx
        .select({ id: sqlSnippets.id, label: sqlSnippets.name })
        .from(sqlSnippets)
        .where(and(eq(sqlSnippets.organization_id, org), inArray(sqlSnippets.id, x))),
    ),
    named('sql_alert', (x) =>
      tx
        .select({ id: sqlAlerts.id, label: sqlAlerts.name })
        .from(sqlAlerts)
        .where(and(eq(sqlAlerts.organization_id, org), inArray(sqlAlerts.id, x))),
    ),
    named('dashboard', (x) =>
      tx
        .select({ id: dashboards.id, label: dashboards.name })
        .from(dashboards)
        .where(and(eq(dashboards.organization_id, org), inArray(dashboards.id, x))),
    ),
  ]);
  return [...lists.flat(), ...byText.map((s) => `sql snippet "${s.label}" (${s.id})`)];
}

/**
 * Deleting a snippet that something still uses is refused (422 invalid_state naming the users):
 * their SQL would otherwise keep a `[name]` that no longer expands.
 */
export async function deleteSnippet({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requirePermission(ctx.principal, 'manage_dashboards', ORGANIZATION);
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`sql-snippets:${org}`}))`);
    const [row] = await tx
      .select()
      .from(sqlSnippets)
      .where(and(eq(sqlSnippets.id, id), eq(sqlSnippets.organization_id, org)))
      .limit(1);
    if (!row) throw notFound('sql snippet', id);
    const users = await usersOf(tx, org, row);
    if (users.length) {
      const shown = users.slice(0, 3).join(', ');
      throw new ApiError(
        'invalid_state',
        `Snippet "${row.name}" is still used by ${shown}${users.length > 3 ? ` and ${users.length - 3} more` : ''}; change those first.`,
      );
    }
    await tx
      .delete(sqlSnippetUses)
      .where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.owner_type, 'sql_snippet'), eq(sqlSnippetUses.owner_id, id)));
    await tx.delete(sqlSnippets).where(and(eq(sqlSnippets.id, id), eq(sqlSnippets.organization_id, org)));
    await audit('delete', 'sql_snippets', id);
  });
}
