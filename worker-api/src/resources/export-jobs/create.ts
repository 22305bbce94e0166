/**
 * Creating export jobs: POST /dashboards/{id}/export_pdf|export_png and
 * POST /reports/{id}/export_pdf|export_png|export_csv. Checks the caller may see the target, records
 * a `started` job and runs it after the answer (run.ts). Unlimited CSV exports need the report's
 * unlimited_csv_export_enabled and are made at most once per 10 minutes for the same parameters:
 * inside that window the recent job's id is answered again.
 */
import { and, desc, eq, gt, sql as dsql } from 'drizzle-orm';
import { ApiError, newId, sha256Hex, type InputParameters } from '@cairn/core';
import { csvOptionsFrom, type CsvOptions } from '@cairn/core/export/index';
import { exportJobs } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { actorOf, requirePermission, requirePermissionOn } from '../../auth/principal.ts';
import { audit } from '../../lib/audit.ts';
import { findDashboard } from '../dashboards/service.ts';
import { findReport } from '../reports/service.ts';
import { principalFor, type ExportKind, type JobSpec } from './run.ts';
import { enqueue } from '../../jobs/messages.ts';
import { checkParameterNames } from '../../engine/parameter-names.ts';

/** The repeat window of unlimited CSV exports (spec: 10 minutes). */
const UNLIMITED_CSV_WINDOW_MS = 10 * 60_000;
/** Page widths accepted (CSS pixels). */
export const PAGE_WIDTH = { min: 320, max: 4000 } as const;
/** Default page width of a single report (spec: 800 by 600); a dashboard's is its default_page_width. */
export const REPORT_PAGE_WIDTH = 800;

export interface RenderBody {
  parameters?: InputParameters;
  color_mode?: 'light' | 'dark';
  page_width?: number;
}

export interface CsvBody {
  parameters?: InputParameters;
  unlimited?: boolean;
  csv_column_separator?: CsvOptions['column_separator'];
  csv_decimal_separator?: CsvOptions['decimal_separator'];
  csv_quote_style?: CsvOptions['quote_style'];
}

export interface CreatedJob {
  job_id: string;
  job_status: 'started' | 'running' | 'success' | 'error';
  /** true when an unlimited CSV export of the same parameters from the last 10 minutes is answered again. */
  reused: boolean;
}

async function insertAndRun(
  ctx: ServiceContext,
  spec: Omit<JobSpec, 'id'>,
  paramsHash: string | null,
  tx?: ReturnType<ServiceContext['direct']>['db'],
): Promise<CreatedJob> {
  const id = newId('export_job');
  await (tx ?? ctx.db).insert(exportJobs).values({
    id,
    organization_id: spec.organizationId,
    kind: spec.kind,
    dashboard_id: spec.report ? null : spec.dashboard.id,
    report_id: spec.report?.id ?? null,
    parameters: spec.parameters,
    params_hash: paramsHash,
    job_status: 'started',
    created_by: actorOf(ctx.principal).actor_id,
  });
  return { job_id: id, job_status: 'started', reused: false };
}

/** Hands the job to the job queue (jobs/consume.ts runs it); if the queue refuses, the job ends in error at once. */
async function start(ctx: ServiceContext, spec: JobSpec) {
  try {
    await enqueue(ctx.env, [{ kind: 'export', organizationId: spec.organizationId, spec, principal: principalFor(spec, ctx.principal) }]);
  } catch (err) {
    console.error(`[${ctx.requestId}] export job ${spec.id} could not be queued`, err);
    await ctx.db
      .update(exportJobs)
      .set({ job_status: 'error', error_message: 'The export could not be queued. Try again in a moment.', updated_at: new Date() })
      .where(and(eq(exportJobs.id, spec.id), eq(exportJobs.organization_id, spec.organizationId)));
  }
}

/** POST /dashboards/{id}/export_pdf and /export_png. */
export async function exportDashboard(ctx: ServiceContext, id: string, format: 'pdf' | 'png', body: RenderBody): Promise<CreatedJob> {
  requirePermission(ctx.principal, 'view_dashboards');
  await requirePermissionOn(ctx.principal, 'view_dashboards', { type: 'dashboards', id }, () => findDashboard(ctx, id));
  const dashboard = await findDashboard(ctx, id);
  await checkParameterNames(ctx, { dashboardId: dashboard.id, parameters: body.parameters, pointer: '/parameters', allReports: true });
  const spec: Omit<JobSpec, 'id'> = {
    organizationId: ctx.principal.organizationId,
    kind: `dashboard_${format}` as ExportKind,
    dashboard,
    report: null,
    parameters: body.parameters ?? {},
    mode: body.color_mode ?? 'light',
    width: body.page_width ?? dashboard.default_page_width ?? 1600,
  };
  const created = await insertAndRun(ctx, spec, null);
  await audit(ctx, 'export', 'dashboards', id, { job_id: created.job_id, format });
  await start(ctx, { ...spec, id: created.job_id });
  return created;
}

/** POST /reports/{id}/export_pdf and /export_png. */
export async function exportReportImage(ctx: ServiceContext, id: string, format: 'pdf' | 'png', body: RenderBody): Promise<CreatedJob> {
  requirePermission(ctx.principal, 'view_dashboards');
  const { report, dashboard } = await findReport(ctx, id);
  requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id: dashboard.id });
  await checkParameterNames(ctx, { dashboardId: dashboard.id, parameters: body.parameters, pointer: '/parameters', sql: [report.sql_query] });
  const spec: Omit<JobSpec, 'id'> = {
    organizationId: ctx.principal.organizationId,
    kind: `report_${format}` as ExportKind,
    dashboard,
    report,
    parameters: body.parameters ?? {},
    mode: body.color_mode ?? 'light',
    width: body.page_width ?? report.default_page_width ?? REPORT_PAGE_WIDTH,
  };
  const created = await insertAndRun(ctx, spec, null);
  await audit(ctx, 'export', 'reports', id, { job_id: created.job_id, format });
  await start(ctx, { ...spec, id: created.job_id });
  return created;
}

/** Parameters in a stable form, so the same choice sent in another key order hashes the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/** POST /reports/{id}/export_csv. */
export async function exportReportCsv(ctx: ServiceContext, id: string, body: CsvBody): Promise<CreatedJob> {
  requirePermission(ctx.principal, 'view_dashboards');
  const { report, dashboard } = await findReport(ctx, id);
  requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id: dashboard.id });
  await checkParameterNames(ctx, { dashboardId: dashboard.id, parameters: body.parameters, pointer: '/parameters', sql: [report.sql_query] });
  if (!report.data_download_enabled) {
    throw new ApiError('forbidden', 'Data downloads are switched off for this report (data_download_enabled).');
  }
  const csv = csvOptionsFrom(body);
  const unlimited = body.unlimited === true;
  if (unlimited && !report.unlimited_csv_export_enabled) {
    throw new ApiError('invalid_state', 'Unlimited CSV export is switched off for this report (unlimited_csv_export_enabled).', {
      source: { pointer: '/unlimited' },
    });
  }
  const spec: Omit<JobSpec, 'id'> = {
    organizationId: ctx.principal.organizationId,
    kind: 'report_csv',
    dashboard,
    report,
    parameters: body.parameters ?? {},
    mode: 'light',
    width: REPORT_PAGE_WIDTH,
    csv,
    unlimited,
  };
  if (!unlimited) {
    const created = await insertAndRun(ctx, spec, null);
    await audit(ctx, 'export', 'reports', id, { job_id: created.job_id, format: 'csv' });
    await start(ctx, { ...spec, id: created.job_id });
    return created;
  }
  // One unlimited export per report, parameters and CSV options per window, across concurrent callers:
  // the check and the insert run under a transaction-scoped advisory lock on the hash.
  const hash = await sha256Hex(JSON.stringify(['report_csv_unlimited', ctx.principal.organizationId, report.id, canonical(spec.parameters), csv]));
  const since = new Date(Date.now() - UNLIMITED_CSV_WINDOW_MS);
  const created = await ctx.direct().db.transaction(async (tx) => {
    await tx.execute(dsql`select pg_advisory_xact_lock(hashtextextended(${hash}, 0))`);
    const [recent] = await tx
      .select({ id: exportJobs.id, status: exportJobs.job_status })
      .from(exportJobs)
      .where(and(eq(exportJobs.organization_id, ctx.principal.organizationId), eq(exportJobs.params_hash, hash), gt(exportJobs.created_at, since)))
      .orderBy(desc(exportJobs.created_at))
      .limit(1);
    if (recent) return { job_id: recent.id, job_status: recent.status, reused: true } satisfies CreatedJob;
    return insertAndRun(ctx, spec, hash, tx as never);
  });
  if (!created.reused) {
    await audit(ctx, 'export', 'reports', id, { job_id: created.job_id, format: 'csv', unlimited: true });
    await start(ctx, { ...spec, id: created.job_id });
  }
  return created;
}
