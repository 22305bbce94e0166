import { and, asc, count, eq } from 'drizzle-orm';
import { ApiError, newId, notFound, type ResourceObject } from '@cairn/core';
import { organizations, sqlAlerts, sqlSnippetUses } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import type { ResourceBody } from '../../lib/resource-body.ts';
import { canAny, requirePermission } from '../../auth/principal.ts';
import { changed } from '../../lib/audit.ts';
import { withTransaction } from '../../lib/transaction.ts';
import { offsetOf, type ListQuery } from '../../lib/jsonapi.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';
import { requireAlertRead, requireAlertWrite, requireAnyAlertWrite, visibleAlerts } from './access.ts';
import { checkDatasource, checkSnippets, includedDatasources, includedSnippets, replaceSnippets, snippetsUsedBy } from './relations.ts';
import { alertProblems, clearedFor, normalized, type AlertState } from './validate.ts';
import { nextRunAt } from './schedule.ts';
import type { sqlAlertBody } from './schema.ts';
import { serializeAlert, type AlertRow } from './serialize.ts';
import { throwProblems } from '../datasources/validate.ts';

type Body = ResourceBody<typeof sqlAlertBody.attributes.shape>;
type Page = ListQuery;

/** filter[name] and sort of GET /sql_alerts. */
export const SQL_ALERT_LIST: ListSpec = {
  name: [sqlAlerts.name],
  sorts: { name: sqlAlerts.name, created_at: sqlAlerts.created_at, updated_at: sqlAlerts.updated_at },
  order: [asc(sqlAlerts.name)],
  id: sqlAlerts.id,
};
type Values = Partial<typeof sqlAlerts.$inferInsert>;

const inOrg = (ctx: ServiceContext, id: string) => and(eq(sqlAlerts.id, id), eq(sqlAlerts.organization_id, ctx.principal.organizationId));

/** An alert the caller may read (View Alerts reaches it); otherwise 404. */
export async function findAlert(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db
    .select()
    .from(sqlAlerts)
    .where(and(eq(sqlAlerts.id, id), visibleAlerts(ctx.principal)))
    .limit(1);
  if (!row) throw notFound('SQL alert', id);
  return row;
}

/** `include=datasource` follows the datasource rule of the API: View or Manage Datasources, or Manage Dashboards. */
function checkInclude(ctx: ServiceContext, include: Set<string>) {
  if (include.has('datasource') && !canAny(ctx.principal, ['view_datasources', 'manage_datasources', 'manage_dashboards'])) {
    throw new ApiError('forbidden', 'Including the datasource needs View Datasources, Manage Datasources or Manage Dashboards.', {
      source: { parameter: 'include' },
    });
  }
}

async function serializeAlerts(ctx: ServiceContext, rows: AlertRow[], include: Set<string>) {
  const snippets = await snippetsUsedBy(
    ctx.db,
    ctx.principal.organizationId,
    'sql_alert',
    rows.map((r) => r.id),
  );
  const data = rows.map((a) => serializeAlert(ctx.baseUrl, a, snippets.get(a.id)!));
  const included: ResourceObject[] = [];
  if (include.has('datasource')) included.push(...(await includedDatasources(ctx, [...new Set(rows.map((r) => r.datasource_id))])));
  if (include.has('sql_snippets')) included.push(...(await includedSnippets(ctx, [...new Set([...snippets.values()].flat())])));
  return { data, included };
}

export async function listAlerts({ ctx, page, include }: { ctx: ServiceContext; page: Page; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_alerts');
  checkInclude(ctx, include);
  const where = and(visibleAlerts(ctx.principal), nameFilter(SQL_ALERT_LIST, page));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(sqlAlerts)
      .where(where)
      .orderBy(...listOrder(SQL_ALERT_LIST, page))
      .limit(page.size)
      .offset(offsetOf(page)),
    ctx.db.select({ n: count() }).from(sqlAlerts).where(where),
  ]);
  return { ...(await serializeAlerts(ctx, rows, include)), total: total?.n ?? 0 };
}

export async function getAlert({ ctx, id, include }: { ctx: ServiceContext; id: string; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_alerts');
  await requireAlertRead(ctx, id);
  checkInclude(ctx, include);
  const res = await serializeAlerts(ctx, [await findAlert(ctx, id)], include);
  return { data: res.data[0]!, included: res.included };
}

/** The alert just written, for the answer of a write (which Manage Datasources alone may make, without View Alerts). */
async function written(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db.select().from(sqlAlerts).where(inOrg(ctx, id)).limit(1);
  if (!row) throw notFound('SQL alert', id);
  return { data: (await serializeAlerts(ctx, [row], new Set())).data[0]! };
}

async function organizationTimeZone(ctx: ServiceContext) {
  const [org] = await ctx.db.select({ tz: organizations.time_zone }).from(organizations).where(eq(organizations.id, ctx.principal.organizationId));
  return org?.tz ?? 'UTC';
}

const stateOf = (v: Values): AlertState => ({
  run_schedule: v.run_schedule!,
  run_at: v.run_at ?? null,
  run_every: v.run_every ?? null,
  trigger_condition: v.trigger_condition!,
  trigger_value: v.trigger_value ?? null,
});

const SCHEDULE_FIELDS = ['run_schedule', 'run_at', 'run_every'] as const;

export async function createAlert({ ctx, input: body }: { ctx: ServiceContext; input: Body }) {
  requirePermission(ctx.principal, 'manage_alerts');
  const id = newId('sql_alert');
  const org = ctx.principal.organizationId;
  const datasourceId = body.relationships.datasource as string;
  const snippetIds = (body.relationships.sql_snippets as string[] | undefined) ?? [];
  const sent = normalized(body.attributes) as Values;
  throwProblems(alertProblems(stateOf(sent), body.attributes));
  await checkDatasource(ctx.db, org, datasourceId);
  // The new alert belongs to its datasource: a grant restricted to datasources must name it, and one
  // restricted to named alerts (or to dashboards) reaches no new alert.
  requirePermission(ctx.principal, 'manage_alerts', { type: 'datasources', id: datasourceId });
  await checkSnippets(ctx.db, org, snippetIds);
  const values = { ...sent, next_run_at: nextRunAt(stateOf(sent), await organizationTimeZone(ctx), new Date()) };
  await withTransaction(ctx, async ({ tx, audit }) => {
    await tx.insert(sqlAlerts).values({ ...values, id, organization_id: org, datasource_id: datasourceId } as typeof sqlAlerts.$inferInsert);
    await replaceSnippets(tx, org, id, snippetIds);
    await audit('create', 'sql_alerts', id, changed(body.attributes, body.relationships));
  });
  return written(ctx, id);
}

export async function updateAlert({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: Body }) {
  requireAnyAlertWrite(ctx.principal);
  const org = ctx.principal.organizationId;
  const sent = normalized(body.attributes) as Values;
  const newDatasource = body.relationships.datasource as string | undefined;
  const snippetIds = body.relationships.sql_snippets as string[] | undefined;
  const timeZone = await organizationTimeZone(ctx);
  await withTransaction(ctx, async ({ tx, audit }) => {
    // The row is locked while the merged state is checked, so concurrent updates see each other.
    const [row] = await tx.select().from(sqlAlerts).where(inOrg(ctx, id)).for('update');
    if (!row) throw notFound('SQL alert', id);
    requireAlertWrite(ctx.principal, id, row.datasource_id);
    if (newDatasource && newDatasource !== row.datasource_id) {
      await checkDatasource(tx, org, newDatasource);
      requireAlertWrite(ctx.principal, id, newDatasource, true);
    }
    if (snippetIds) await checkSnippets(tx, org, snippetIds);
    const merged = stateOf({ ...row, ...sent });
    throwProblems(alertProblems(merged, body.attributes));
    // Only the columns sent (and what they imply) are written, so concurrent updates of other fields survive.
    const set: Values = { ...sent, ...clearedFor(merged) };
    if (SCHEDULE_FIELDS.some((k) => k in sent)) set.next_run_at = nextRunAt(merged, timeZone, new Date());
    if (newDatasource) set.datasource_id = newDatasource;
    await tx
      .update(sqlAlerts)
      .set({ ...set, updated_at: new Date() })
      .where(inOrg(ctx, id));
    if (snippetIds) await replaceSnippets(tx, org, id, snippetIds);
    await audit('update', 'sql_alerts', id, changed(body.attributes, body.relationships));
  });
  return written(ctx, id);
}

export async function deleteAlert({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requireAnyAlertWrite(ctx.principal);
  const [row] = await ctx.db.select({ datasource_id: sqlAlerts.datasource_id }).from(sqlAlerts).where(inOrg(ctx, id)).limit(1);
  if (!row) throw notFound('SQL alert', id);
  requireAlertWrite(ctx.principal, id, row.datasource_id);
  await withTransaction(ctx, async ({ tx, audit }) => {
    await tx.delete(sqlSnippetUses).where(and(eq(sqlSnippetUses.owner_type, 'sql_alert'), eq(sqlSnippetUses.owner_id, id)));
    // Its results go with it (foreign key cascade).
    await tx.delete(sqlAlerts).where(inOrg(ctx, id));
    await audit('delete', 'sql_alerts', id);
  });
}
