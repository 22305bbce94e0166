import { and, asc, count, eq, sql } from 'drizzle-orm';
import { ApiError, newId, notFound, signDataToken, type InputParameters, type ResourceObject } from '@cairn/core';
import { dashboards, reportFilters, reports, sqlSnippetUses } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import type { ResourceBody } from '../../lib/resource-body.ts';
import { requirePermission } from '../../auth/principal.ts';
import { visibleDashboards } from '../../auth/access.ts';
import { audit, changed } from '../../lib/audit.ts';
import { withTransaction } from '../../lib/transaction.ts';
import { offsetOf, type ListQuery } from '../../lib/jsonapi.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';
import { executeQuery } from '../../engine/execute.ts';
import { mergeParameters } from '../../engine/dashboard-run.ts';
import { checkParameterNames } from '../../engine/parameter-names.ts';
import { dashboardFilterDefinitions } from '../filters/definitions.ts';
import { enforceFilterRules } from '../filters/enforce.ts';
import { downloadClaims } from './data-format.ts';
import { requireDatasourceInclude, requireDatasourceUse } from '../../lib/datasource-use.ts';
import { reportIncluded, serializeReports } from '../../lib/include.ts';
import { appendTile, lockUnlockedDashboard, removeTile } from './layout.ts';
import { linkReportSql } from './links.ts';
import { DEFAULT_TILE, DERIVED_REPORT_RELATIONSHIPS, type reportBody } from './schema.ts';

/**
 * Reads a report whose dashboard the caller may see, with that dashboard; otherwise a 404 (a report
 * on an invisible dashboard does not exist for the caller). One query.
 */
export async function findReport(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db
    .select({ report: reports, dashboard: dashboards })
    .from(reports)
    .innerJoin(dashboards, eq(dashboards.id, reports.dashboard_id))
    .where(and(eq(reports.id, id), eq(reports.organization_id, ctx.principal.organizationId), visibleDashboards(ctx.principal)))
    .limit(1);
  if (!row) throw notFound('report', id);
  return row;
}

/**
 * POST /reports/{id}/data: runs the report with the given parameters (or reuses a fresh result) and
 * returns a handle to fetch it from this region's data server; null when the result has no rows.
 */
export async function reportData({
  ctx,
  id,
  parameters,
  format,
  filterRules = true,
}: {
  ctx: ServiceContext;
  id: string;
  parameters: InputParameters | undefined;
  format: 'json' | 'csv' | 'xlsx';
  /** Hold the dashboard's filter rules (required, dropdown_validate, all_time); sharing links apply their own parameters. */
  filterRules?: boolean;
}) {
  requirePermission(ctx.principal, 'view_dashboards');
  const { report, dashboard } = await findReport(ctx, id);
  requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id: dashboard.id });
  if (format !== 'json' && !report.data_download_enabled) {
    throw new ApiError('forbidden', 'Data downloads are switched off for this report (data_download_enabled).');
  }
  await checkParameterNames(ctx, { dashboardId: dashboard.id, parameters, pointer: '/parameters', sql: [report.sql_query] });
  const merged = mergeParameters(dashboard.default_parameters, parameters);
  if (filterRules) await enforceFilterRules(ctx, dashboard, merged);
  const defs = await dashboardFilterDefinitions(ctx, dashboard.id);
  const outcome = await executeQuery(ctx, {
    datasourceId: report.datasource_id,
    sql: report.sql_query,
    filters: defs,
    // The same parameters, time zone and built-in snippet values as the dashboard's status call.
    parameters: merged,
    dashboard,
    freshMinutes: report.data_refresh_rate ?? dashboard.data_refresh_rate,
    source: { report_id: report.id },
    executionType: 'sql_query',
  });
  if (outcome.rowCount === 0) return null;
  const token = await signDataToken(
    { kind: 'data', org: ctx.principal.organizationId, key: outcome.dataKey, region: ctx.env.REGION, ...downloadClaims(format, report.name) },
    ctx.env.DATA_TOKEN_SECRET,
  );
  const base = (ctx.env.DATA_SERVER_URL ?? '').replace(/\/$/, '');
  return {
    data_key: outcome.dataKey,
    data_access_token: token,
    data_url: `${base}/data/${outcome.dataKey}`,
    execution_id: outcome.executionId,
    time_zone: outcome.timeZone,
  };
}

type Body = ResourceBody<typeof reportBody.attributes.shape>;
type Page = ListQuery;

/** filter[name] and sort of GET /reports. */
export const REPORT_LIST: ListSpec = {
  name: [reports.name],
  sorts: { name: reports.name, created_at: reports.created_at, updated_at: reports.updated_at },
  order: [asc(reports.created_at)],
  id: reports.id,
};

/** filters and sql_snippets follow from the SQL; writing them is a read-only error. */
function refuseDerived(body: Body) {
  for (const name of DERIVED_REPORT_RELATIONSHIPS) {
    if (body.relationships[name] !== undefined) {
      throw new ApiError('read_only_attribute', `The ${name} relationship is read-only: it lists what the report's sql_query uses.`, {
        source: { pointer: `/data/relationships/${name}` },
      });
    }
  }
}

export async function listReports({ ctx, page, include }: { ctx: ServiceContext; page: Page; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_dashboards');
  requireDatasourceInclude(ctx, include);
  const where = and(eq(reports.organization_id, ctx.principal.organizationId), visibleDashboards(ctx.principal), nameFilter(REPORT_LIST, page));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({ report: reports, layout: dashboards.layout })
      .from(reports)
      .innerJoin(dashboards, eq(dashboards.id, reports.dashboard_id))
      .where(where)
      .orderBy(...listOrder(REPORT_LIST, page))
      .limit(page.size)
      .offset(offsetOf(page)),
    ctx.db.select({ n: count() }).from(reports).innerJoin(dashboards, eq(dashboards.id, reports.dashboard_id)).where(where),
  ]);
  const data = await serializeReports(ctx, rows);
  return { data, included: include.size ? await reportIncluded(ctx, data, include) : [], total: total?.n ?? 0 };
}

export async function getReport({
  ctx,
  id,
  include,
}: {
  ctx: ServiceContext;
  id: string;
  include: Set<string>;
}): Promise<{ data: ResourceObject; included: ResourceObject[] }> {
  requirePermission(ctx.principal, 'view_dashboards');
  requireDatasourceInclude(ctx, include);
  const { report, dashboard } = await findReport(ctx, id);
  requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id: dashboard.id });
  const [data] = await serializeReports(ctx, [{ report, layout: dashboard.layout }]);
  return { data: data!, included: include.size ? await reportIncluded(ctx, [data!], include) : [] };
}

/** The dashboard a new report goes on: visible to the caller, else 422 (Manage Dashboards is checked with the datasource). */
async function targetDashboard(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db
    .select({ id: dashboards.id })
    .from(dashboards)
    .where(and(eq(dashboards.id, id), visibleDashboards(ctx.principal)))
    .limit(1);
  if (!row) {
    throw new ApiError('invalid_relationship', `No dashboard with id "${id}" exists in this organization.`, {
      source: { pointer: '/data/relationships/dashboard' },
    });
  }
}

const onDashboard = (id: string) => ({ type: 'dashboards' as const, id });
const onDatasource = (id: string) => ({ type: 'datasources' as const, id });

async function auditAdHoc(ctx: ServiceContext, filterIds: string[], reportId: string) {
  for (const id of filterIds) await audit(ctx, 'create', 'filters', id, { ad_hoc: true, report_id: reportId });
}

export async function createReport({ ctx, input: body }: { ctx: ServiceContext; input: Body }) {
  requirePermission(ctx.principal, 'manage_dashboards');
  refuseDerived(body);
  const dashboardId = body.relationships.dashboard as string;
  const datasourceId = body.relationships.datasource as string;
  await targetDashboard(ctx, dashboardId);
  await requireDatasourceUse(ctx, datasourceId, '/data/relationships/datasource', { owners: [onDashboard(dashboardId)] });
  const { width, height, ...attributes } = body.attributes;
  const id = newId('report');
  const org = ctx.principal.organizationId;
  const adHoc = await ctx.direct().db.transaction(async (tx) => {
    await lockUnlockedDashboard(tx, org, dashboardId, '/data/relationships/dashboard');
    await tx.insert(reports).values({
      ...attributes,
      id,
      organization_id: org,
      dashboard_id: dashboardId,
      datasource_id: datasourceId,
      name: attributes.name!,
      sql_query: attributes.sql_query!,
    });
    await appendTile(tx, org, dashboardId, id, { width: width ?? DEFAULT_TILE.width, height: height ?? DEFAULT_TILE.height });
    return linkReportSql(tx, org, { id, dashboard_id: dashboardId, sql_query: attributes.sql_query! });
  });
  await audit(ctx, 'create', 'reports', id, changed(body.attributes, body.relationships));
  await auditAdHoc(ctx, adHoc, id);
  return getReport({ ctx, id, include: new Set() });
}

export async function updateReport({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: Body }) {
  requirePermission(ctx.principal, 'manage_dashboards');
  refuseDerived(body);
  const { report } = await findReport(ctx, id);
  // The report as it is (its dashboard and datasource) and, when it moves, the datasource it moves to.
  requirePermission(ctx.principal, 'manage_dashboards', [onDashboard(report.dashboard_id), onDatasource(report.datasource_id)]);
  const datasourceId = body.relationships.datasource as string | undefined;
  if (datasourceId) await requireDatasourceUse(ctx, datasourceId, '/data/relationships/datasource', { owners: [onDashboard(report.dashboard_id)] });
  const org = ctx.principal.organizationId;
  const adHoc = await ctx.direct().db.transaction(async (tx) => {
    await lockUnlockedDashboard(tx, org, report.dashboard_id);
    // Only the attributes sent are written, so concurrent updates of different fields both survive.
    await tx
      .update(reports)
      .set({ ...body.attributes, ...(datasourceId ? { datasource_id: datasourceId } : {}), updated_at: new Date() })
      .where(and(eq(reports.id, id), eq(reports.organization_id, org)));
    if (body.attributes.sql_query === undefined) return [];
    return linkReportSql(tx, org, { id, dashboard_id: report.dashboard_id, sql_query: body.attributes.sql_query });
  });
  await audit(ctx, 'update', 'reports', id, changed(body.attributes, body.relationships));
  await auditAdHoc(ctx, adHoc, id);
  return getReport({ ctx, id, include: new Set() });
}

export async function deleteReport({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requirePermission(ctx.principal, 'manage_dashboards');
  const { report } = await findReport(ctx, id);
  requirePermission(ctx.principal, 'manage_dashboards', [onDashboard(report.dashboard_id), onDatasource(report.datasource_id)]);
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    await lockUnlockedDashboard(tx, org, report.dashboard_id);
    await removeTile(tx, org, report.dashboard_id, id);
    await tx
      .delete(sqlSnippetUses)
      .where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.owner_type, 'report'), eq(sqlSnippetUses.owner_id, id)));
    await tx.delete(reports).where(and(eq(reports.id, id), eq(reports.organization_id, org)));
    await audit('delete', 'reports', id);
  });
}

/** A copy on the same dashboard (same SQL, settings, chart and tile size), placed below the other tiles. */
export async function duplicateReport({ ctx, id, name }: { ctx: ServiceContext; id: string; name: string | undefined }) {
  requirePermission(ctx.principal, 'manage_dashboards');
  const { report, dashboard } = await findReport(ctx, id);
  requirePermission(ctx.principal, 'manage_dashboards', [onDashboard(dashboard.id), onDatasource(report.datasource_id)]);
  const tile = dashboard.layout.find((t) => t.id === id);
  const copyId = newId('report');
  const org = ctx.principal.organizationId;
  const { id: _id, created_at: _c, updated_at: _u, ...copy } = report;
  await withTransaction(ctx, async ({ tx, audit }) => {
    await lockUnlockedDashboard(tx, org, dashboard.id);
    await tx.insert(reports).values({ ...copy, id: copyId, name: name ?? `${report.name} (copy)` });
    await appendTile(tx, org, dashboard.id, copyId, { width: tile?.width ?? DEFAULT_TILE.width, height: tile?.height ?? DEFAULT_TILE.height });
    await tx.execute(sql`insert into ${reportFilters} (organization_id, report_id, filter_id)
      select organization_id, ${copyId}, filter_id from ${reportFilters} where report_id = ${id} and organization_id = ${org}`);
    await tx.execute(sql`insert into ${sqlSnippetUses} (organization_id, owner_type, owner_id, sql_snippet_id)
      select organization_id, owner_type, ${copyId}, sql_snippet_id from ${sqlSnippetUses}
      where owner_type = 'report' and owner_id = ${id} and organization_id = ${org}`);
    await audit('create', 'reports', copyId, { duplicate_of: id });
  });
  return getReport({ ctx, id: copyId, include: new Set() });
}
