import { dashboardFilterDefinitions } from '../filters/definitions.ts';
/**
 * The data side of exports and scheduled e-mails: run a report through the engine (reusing a fresh
 * result, as the data call does) and write its stored chunks as CSV or XLSX with the core writers.
 */
import { and, eq } from 'drizzle-orm';
import type postgres from 'postgres';
import { csvStream, DEFAULT_CSV_OPTIONS, type CsvOptions } from '@cairn/core/export/index';
import type { InputParameters, ResultField } from '@cairn/core';
import { results, type dashboards, type reports } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { executeQuery } from '../../engine/execute.ts';
import { mergeParameters } from '../../engine/dashboard-run.ts';
import type { ResultBucket } from '@cairn/core/results/object';
import { storedChunks } from '../../engine/stored-chunks.ts';

type ReportRow = typeof reports.$inferSelect;
type DashboardRow = typeof dashboards.$inferSelect;

/** Rows of a CSV export unless it is an unlimited one (report switch unlimited_csv_export_enabled). */
export const CSV_EXPORT_ROW_LIMIT = 100_000;

export interface RanReport {
  executionId: string;
  rowCount: number;
  fields: ResultField[];
  /** The region's bucket, where the rows are (D55). */
  bucket: ResultBucket;
}

/** Runs the report with the dashboard's defaults under the given parameters (a query error is an ApiError). */
export async function runReport(ctx: ServiceContext, report: ReportRow, dashboard: DashboardRow, parameters: InputParameters | undefined): Promise<RanReport> {
  const defs = await dashboardFilterDefinitions(ctx, dashboard.id);
  const outcome = await executeQuery(ctx, {
    datasourceId: report.datasource_id,
    sql: report.sql_query,
    filters: defs,
    parameters: mergeParameters(dashboard.default_parameters, parameters),
    dashboard,
    freshMinutes: report.data_refresh_rate ?? dashboard.data_refresh_rate,
    source: { report_id: report.id },
    executionType: 'export_query',
  });
  const [r] = await ctx.db
    .select({ fields: results.fields })
    .from(results)
    .where(and(eq(results.execution_id, outcome.executionId), eq(results.organization_id, ctx.principal.organizationId)))
    .limit(1);
  return { executionId: outcome.executionId, rowCount: outcome.rowCount, fields: r?.fields ?? [], bucket: ctx.env.RESULTS };
}

/**
 * The stored chunks of a result, one query per chunk; with `rowLimit`, the rows past it are left out
 * (the chunk that crosses the limit is cut row-wise: chunks are comma-joined JSON row arrays).
 */
export async function* chunksOf(sql: postgres.Sql, executionId: string, rowLimit: number, bucket: ResultBucket): AsyncGenerator<Uint8Array> {
  let rows = 0;
  for await (const row of storedChunks(sql, bucket, executionId)) {
    if (rows >= rowLimit) return;
    const data = row.data;
    if (rows + row.rows <= rowLimit) {
      rows += row.rows;
      yield data;
      continue;
    }
    const kept = (JSON.parse(`[${new TextDecoder().decode(data)}]`) as unknown[][]).slice(0, rowLimit - rows);
    yield new TextEncoder().encode(kept.map((r) => JSON.stringify(r)).join(','));
    return;
  }
}

export function csvOf(sql: postgres.Sql, ran: RanReport, opts: CsvOptions = DEFAULT_CSV_OPTIONS, rowLimit = Infinity): AsyncGenerator<Uint8Array> {
  return csvStream(ran.fields, chunksOf(sql, ran.executionId, rowLimit, ran.bucket), opts);
}

/** A file name from a report's or dashboard's name (no path or control characters). */
export const safeFileName = (name: string, fallback: string) =>
  name
    .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ')
    .trim()
    .slice(0, 100) || fallback;
