/**
 * Helpers of the dashboard/report data tests: dashboards with reports of chosen SQL on the sample
 * datasource, and the region's data server (worker-data's app, run in this test worker against the
 * same database and token secret) to follow a token to the file it opens.
 */
import { createExecutionContext, env } from 'cloudflare:test';
import { dashboards, reports } from '@cairn/db';
import { newId } from '@cairn/core';
import { createApp as createDataApp } from '../../worker-data/src/app.ts';
import { db } from './fixtures.ts';

export { readZip } from '../../worker-data/test/zip.ts';

const dataApp = createDataApp();

/** A request to this region's data server. */
export function dataServer(path: string, init: RequestInit = {}): Promise<Response> {
  return Promise.resolve(dataApp.fetch(new Request(`http://data.test${path}`, init), env as never, createExecutionContext()));
}

/** POST /process with the token as JSON. */
export const processDownload = (token: string) =>
  dataServer('/process', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data_access_token: token }) });

export interface ReportSpec {
  name: string;
  sql: string;
  data_download_enabled?: boolean;
}

/**
 * A private dashboard (no owner: API keys see it, users other than admins do not) with these reports.
 * Its tiles are laid out in the reverse order of `specs`, so a download that follows the layout lists
 * the last report first.
 */
export async function dashboardWith(organizationId: string, datasourceId: string, name: string, specs: ReportSpec[]) {
  const id = newId('dashboard');
  const ids = specs.map(() => newId('report'));
  await db()
    .insert(dashboards)
    .values({
      id,
      organization_id: organizationId,
      name,
      layout: ids.map((rid, i) => ({ type: 'report' as const, id: rid, row: 1 + (specs.length - 1 - i) * 6, column: 1, width: 12, height: 6 })),
    });
  for (let i = 0; i < specs.length; i++) {
    const s = specs[i]!;
    await db()
      .insert(reports)
      .values({
        id: ids[i]!,
        organization_id: organizationId,
        dashboard_id: id,
        datasource_id: datasourceId,
        name: s.name,
        sql_query: s.sql,
        data_download_enabled: s.data_download_enabled ?? true,
      });
  }
  return { id, reportIds: ids };
}
