import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq } from 'drizzle-orm';
import { auditLog, dashboardSchedules, dashboards, exportFileChunks, exportJobs, reports } from '@cairn/db';
import { newId } from '@cairn/core';
import worker from '../../index.ts';
import { call, db, jsonApi, makeKey, makeOrg, only } from '../../../test/fixtures.ts';
import { eventually } from '../../../test/engine-fixtures.ts';
import { signRenderToken } from './render-token.ts';
import { LOST_JOB_MESSAGE } from './run.ts';
import { PUBLIC_REPORT_ERROR } from '../public-links/service.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let other: CreateOrganizationResult;
let key: string;
let orgId: string;
let reportId: string;

const post = (path: string, body?: unknown, k: string = key) => call(path, { key: k, method: 'POST', ...(body === undefined ? {} : { body }) });
const jobRow = async (id: string) => (await db().select().from(exportJobs).where(eq(exportJobs.id, id)))[0]!;
/** Waits until the job has ended (success or error) and answers GET /export_jobs/{id}. */
async function finished(id: string, k = key) {
  return eventually(
    async () => {
      const res = await call(`/export_jobs/${id}`, { key: k });
      return ['success', 'error'].includes(res.json?.data?.attributes?.job_status) ? res : null;
    },
    30_000,
    100,
  );
}
/** The job's file, from the region's bucket (ARCHITECTURE D55); nothing of it is left in export_file_chunks. */
const fileOf = async (id: string) => {
  const rows = await db().select().from(exportFileChunks).where(eq(exportFileChunks.job_id, id)).orderBy(asc(exportFileChunks.seq));
  expect(rows.length).toBe(0);
  const obj = await env.RESULTS!.get(`exports/${id}`);
  const bytes = obj ? new Uint8Array(await obj.arrayBuffer()) : new Uint8Array(0);
  // The BOM stays in `bytes`; the decoded text leaves it out.
  return { size: bytes.length, bom: bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf, text: new TextDecoder().decode(bytes) };
};

beforeAll(async () => {
  [org, other] = await Promise.all([makeOrg('export-create'), makeOrg('export-create-other')]);
  orgId = org.organization.id;
  key = await makeKey(orgId);
  reportId = org.sampleDashboard.reports.find((r) => r.name === 'Revenue by country')!.id;
});

describe('PDF and PNG exports without a renderer', () => {
  it('answers 202 with a job that ends in error naming RENDERER_URL, for dashboards and reports, PDF and PNG', async () => {
    for (const path of [
      `/dashboards/${org.sampleDashboard.id}/export_pdf`,
      `/dashboards/${org.sampleDashboard.id}/export_png`,
      `/reports/${reportId}/export_pdf`,
      `/reports/${reportId}/export_png`,
    ]) {
      const res = await post(path, { color_mode: 'dark', page_width: 1200 });
      expect(res.status, `${path}: ${JSON.stringify(res.json)}`).toBe(202);
      expect(res.json).toMatchObject({ job_status: 'started', reused: false });
      const done = await finished(res.json.job_id);
      expect(done.json.data.attributes.job_status).toBe('error');
      expect(done.json.data.attributes.error_message).toMatch(/RENDERER_URL/);
      expect(done.json.data.attributes).not.toHaveProperty('file_url');
    }
    const [row] = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, orgId), eq(auditLog.action, 'export'), eq(auditLog.resource_id, org.sampleDashboard.id)));
    expect(row).toBeDefined();
  });

  it('records the job against the report (not the dashboard) for a report export', async () => {
    const res = await post(`/reports/${reportId}/export_png`);
    const row = await jobRow(res.json.job_id);
    expect(row).toMatchObject({ kind: 'report_png', report_id: reportId, dashboard_id: null, organization_id: orgId });
    await finished(res.json.job_id);
  });
});

describe('export job creation: bad input and permissions', () => {
  it('answers 422 with pointers for bad bodies, 415 for another media type, 400 for broken JSON', async () => {
    const path = `/dashboards/${org.sampleDashboard.id}/export_pdf`;
    const bad = await post(path, { page_width: 100, color_mode: 'blue', extra: 1 });
    expect(bad.status).toBe(422);
    const pointers = bad.json.errors.map((e: any) => e.source?.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/page_width', '/color_mode']));
    expect((await post(`/reports/${reportId}/export_csv`, { csv_column_separator: 'pipe' })).status).toBe(422);
    expect((await post(`/reports/${reportId}/export_csv`, { csv_decimal_separator: 'comma' })).json.errors[0].source.pointer).toBe('/csv_decimal_separator');
    expect((await post(`/reports/${reportId}/export_csv`, { parameters: { timerange: 5 } })).status).toBe(422);
    expect((await call(path, { key, method: 'POST', rawBody: '{}', contentType: 'text/plain' })).status).toBe(415);
    expect((await call(path, { key, method: 'POST', rawBody: '{', contentType: 'application/json' })).status).toBe(400);
    expect(
      await db()
        .select()
        .from(exportJobs)
        .where(and(eq(exportJobs.organization_id, orgId), eq(exportJobs.kind, 'report_csv'))),
    ).toEqual([]);
  });

  it("needs View Dashboards on the dashboard; another organization's dashboard or report is a 404", async () => {
    const noView = await makeKey(orgId, only('view_schedules'));
    expect((await post(`/dashboards/${org.sampleDashboard.id}/export_png`, {}, noView)).status).toBe(403);
    expect((await post(`/reports/${reportId}/export_csv`, {}, noView)).status).toBe(403);
    const second = await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Second' } }, key);
    expect(second.status, JSON.stringify(second.json)).toBe(201);
    const elsewhere = await makeKey(orgId, [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: second.json.data.id }] }]);
    // A dashboard (or a report on one) outside the key's grant is invisible to it: not found (D44).
    expect((await post(`/dashboards/${org.sampleDashboard.id}/export_pdf`, {}, elsewhere)).status).toBe(404);
    expect((await post(`/reports/${reportId}/export_pdf`, {}, elsewhere)).status).toBe(404);
    for (const path of [
      `/dashboards/${other.sampleDashboard.id}/export_pdf`,
      `/reports/${other.sampleDashboard.reports[0]!.id}/export_csv`,
      '/reports/rep_nope/export_png',
    ]) {
      const res = await post(path, {});
      expect(res.status, path).toBe(404);
    }
    expect((await call(`/dashboards/${org.sampleDashboard.id}/export_pdf`, { key: null, method: 'POST' })).status).toBe(401);
  });
});

describe('CSV exports', () => {
  it('runs the report through the engine and stores a CSV file with a short-lived file URL', async () => {
    const res = await post(`/reports/${reportId}/export_csv`, { csv_column_separator: 'semicolon' });
    expect(res.status).toBe(202);
    const done = await finished(res.json.job_id);
    expect(done.json.data.attributes.job_status, JSON.stringify(done.json)).toBe('success');
    const url = new URL(done.json.data.attributes.file_url);
    expect(url.pathname).toBe(`/exports/${res.json.job_id}`);
    const row = await jobRow(res.json.job_id);
    expect(row).toMatchObject({ file_key: `export/${res.json.job_id}`, file_name: 'Revenue by country.csv', content_type: 'text/csv; charset=utf-8' });
    const { text, size, bom } = await fileOf(res.json.job_id);
    expect(Number(row.file_size)).toBe(size);
    expect(bom).toBe(true);
    const lines = text.trim().split(/\r?\n/);
    expect(lines[0]).toContain(';');
    expect(lines.length).toBeGreaterThan(1);
  });

  it('refuses downloads when the report switches them off', async () => {
    const r = org.sampleDashboard.reports.find((x) => x.name === 'Latest orders')!;
    await db().update(reports).set({ data_download_enabled: false }).where(eq(reports.id, r.id));
    try {
      expect((await post(`/reports/${r.id}/export_csv`)).status).toBe(403);
    } finally {
      await db().update(reports).set({ data_download_enabled: true }).where(eq(reports.id, r.id));
    }
  });

  it('unlimited: needs the report switch, then one job per parameters per 10 minutes (the recent id is answered)', async () => {
    const r = org.sampleDashboard.reports.find((x) => x.name === 'Revenue by category')!;
    const off = await post(`/reports/${r.id}/export_csv`, { unlimited: true });
    expect(off.status).toBe(422);
    expect(off.json.errors[0]).toMatchObject({ code: 'invalid_state', source: { pointer: '/unlimited' } });
    await db().update(reports).set({ unlimited_csv_export_enabled: true }).where(eq(reports.id, r.id));
    const params = { parameters: { tz: 'UTC', aggregation: 'month' } };
    // Two at once still make one job.
    const [a, b] = await Promise.all([
      post(`/reports/${r.id}/export_csv`, { unlimited: true, ...params }),
      post(`/reports/${r.id}/export_csv`, { unlimited: true, ...params }),
    ]);
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(a.json.job_id).toBe(b.json.job_id);
    expect([a.json.reused, b.json.reused].sort()).toEqual([false, true]);
    // The same parameters in another order are the same parameters.
    const again = await post(`/reports/${r.id}/export_csv`, { parameters: { aggregation: 'month', tz: 'UTC' }, unlimited: true });
    expect(again.json).toMatchObject({ job_id: a.json.job_id, reused: true });
    // Other parameters, another CSV option, or a limited export: new jobs.
    const otherParams = await post(`/reports/${r.id}/export_csv`, { unlimited: true, parameters: { tz: 'UTC' } });
    expect(otherParams.json.job_id).not.toBe(a.json.job_id);
    const otherOptions = await post(`/reports/${r.id}/export_csv`, { unlimited: true, csv_quote_style: 'always', ...params });
    expect(otherOptions.json.job_id).not.toBe(a.json.job_id);
    const limited = await post(`/reports/${r.id}/export_csv`, params);
    expect(limited.json.reused).toBe(false);
    // Past the window, a new job.
    await db()
      .update(exportJobs)
      .set({ created_at: new Date(Date.now() - 11 * 60_000) })
      .where(eq(exportJobs.id, a.json.job_id));
    const later = await post(`/reports/${r.id}/export_csv`, { unlimited: true, ...params });
    expect(later.json).toMatchObject({ reused: false });
    expect(later.json.job_id).not.toBe(a.json.job_id);
    for (const id of [a.json.job_id, otherParams.json.job_id, otherOptions.json.job_id, limited.json.job_id, later.json.job_id]) {
      expect((await finished(id)).json.data.attributes.job_status).toBe('success');
    }
  });
});

describe('lost jobs', () => {
  it('a job left running by a stopped consumer (no heartbeat for a lease) reads as error, and the cron writes it off too', async () => {
    // EXECUTION_LEASE_MS is 10 s in the test config: 20 s without a heartbeat is a lost job.
    const old = new Date(Date.now() - 20_000);
    const [a, b] = [newId('export_job'), newId('export_job')];
    await db()
      .insert(exportJobs)
      .values(
        [a, b].map((id) => ({
          id,
          organization_id: orgId,
          kind: 'dashboard_png' as const,
          dashboard_id: org.sampleDashboard.id,
          job_status: 'running' as const,
          updated_at: old,
        })),
      );
    const res = await call(`/export_jobs/${a}`, { key });
    expect(res.json.data.attributes).toMatchObject({ job_status: 'error', error_message: LOST_JOB_MESSAGE });
    const ctx = createExecutionContext();
    await worker.scheduled({ scheduledTime: Date.now(), cron: '* * * * *', noRetry() {} } as ScheduledController, env, ctx);
    await waitOnExecutionContext(ctx);
    expect((await jobRow(b)).job_status).toBe('error');
  });
});

describe('print view routes (render token)', () => {
  it("open the token's dashboard as a viewer without SQL, and refuse bad, forged and expired tokens", async () => {
    const claims = { org: orgId, dashboard: org.sampleDashboard.id, report: null, parameters: {}, mode: 'dark' as const, width: 1400 };
    const token = await signRenderToken(claims, env.SECRET_KEY);
    const res = await call(`/public/render/${token}`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.json.render).toEqual({ report_id: null, color_mode: 'dark', page_width: 1400 });
    expect(res.json.reports.length).toBe(org.sampleDashboard.reports.length);
    expect(JSON.stringify(res.json)).not.toContain('sql_query');
    const single = await call(`/public/render/${await signRenderToken({ ...claims, report: reportId }, env.SECRET_KEY)}`, { method: 'POST' });
    expect(single.json.reports.map((r: any) => r.id)).toEqual([reportId]);
    const status = await call(`/public/render/${token}/status`, { method: 'POST' });
    expect(status.status).toBe(200);
    expect(Array.isArray(status.json.reports)).toBe(true);
    const forged = await signRenderToken(claims, 'another-secret');
    const expired = await signRenderToken(claims, env.SECRET_KEY, Date.now() - 3_600_000);
    for (const t of [forged, expired, 'r1.nonsense', `${token.slice(0, -2)}xx`]) {
      const r = await call(`/public/render/${t}/status`, { method: 'POST' });
      expect(r.status, t).toBe(401);
    }
    // The token names one organization's dashboard: another organization's id in it finds nothing.
    const cross = await signRenderToken({ ...claims, dashboard: other.sampleDashboard.id }, env.SECRET_KEY);
    expect((await call(`/public/render/${cross}`, { method: 'POST' })).status).toBe(404);
  });

  it("give a generic message for a failing report (the PDF goes to recipients outside the organization); a key sees the database's", async () => {
    const dashboard = newId('dashboard');
    const broken = newId('report');
    await db().insert(dashboards).values({ id: dashboard, organization_id: orgId, name: 'Print view with a broken report' });
    await db().insert(reports).values({
      id: broken,
      organization_id: orgId,
      dashboard_id: dashboard,
      datasource_id: org.sampleDatasource.id,
      name: 'Broken',
      sql_query: 'select secret_column from no_such_table_h10',
    });
    const token = await signRenderToken({ org: orgId, dashboard, report: null, parameters: {}, mode: 'light', width: 1200 }, env.SECRET_KEY);
    const item = await eventually(
      async () => {
        const res = await call(`/public/render/${token}/status`, { method: 'POST' });
        expect(res.status).toBe(200);
        const r = res.json.reports.find((x: any) => x.report_id === broken);
        return r?.result_status === 'error' ? { r, text: JSON.stringify(res.json) } : null;
      },
      30_000,
      150,
    );
    expect(item.r.error).toEqual({ code: expect.any(String), message: PUBLIC_REPORT_ERROR });
    expect(item.text).not.toMatch(/no_such_table_h10|secret_column|relation/);
    const signedIn = await post(`/dashboards/${dashboard}/status`, {});
    expect(signedIn.json.reports.find((r: any) => r.report_id === broken).error.message).toMatch(/no_such_table_h10/);
  });
});

describe('schedules', () => {
  it('send_now answers 422 with the reason when nothing can be sent, and keeps it as last_error_message', async () => {
    const res = await call('/dashboard_schedules', {
      key,
      method: 'POST',
      contentType: 'application/vnd.api+json',
      body: {
        data: {
          type: 'dashboard_schedules',
          attributes: { name: 'Now', emails: 'ana@example.com', attach_as: 'png', schedule: 'daily;08:00' },
          relationships: { dashboard: { data: { type: 'dashboards', id: org.sampleDashboard.id } } },
        },
      },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const id = res.json.data.id;
    const sent = await post(`/dashboard_schedules/${id}/send_now`);
    expect(sent.status).toBe(422);
    expect(sent.json.errors[0].detail).toMatch(/RENDERER_URL/);
    const [row] = await db().select().from(dashboardSchedules).where(eq(dashboardSchedules.id, id));
    expect(row!.last_error_message).toMatch(/RENDERER_URL/);
    expect(row!.last_sent_at).toBeNull();
  });

  it('the cron claims a due schedule once, even when two ticks see it, and moves next_send_at on', async () => {
    const id = newId('dashboard_schedule');
    const due = new Date(Date.now() - 60_000);
    await db().insert(dashboardSchedules).values({
      id,
      organization_id: orgId,
      dashboard_id: org.sampleDashboard.id,
      name: 'Due',
      emails: 'ana@example.com',
      attach_as: 'pdf',
      schedule: 'daily;08:00',
      next_send_at: due,
    });
    const tick = async () => {
      const { runCron } = await import('../../cron.ts');
      const summary = await runCron(env, new Date());
      return summary.schedulesSent.filter((s) => s === id).length;
    };
    const claims = await Promise.all([tick(), tick()]);
    expect(claims[0]! + claims[1]!).toBe(1);
    const [row] = await db().select().from(dashboardSchedules).where(eq(dashboardSchedules.id, id));
    expect(row!.next_send_at!.getTime()).toBeGreaterThan(Date.now());
    // The queue's consumer tried it: without a renderer nothing was sent, and the reason is kept.
    await eventually(
      async () => /RENDERER_URL/.test((await db().select().from(dashboardSchedules).where(eq(dashboardSchedules.id, id)))[0]!.last_error_message ?? ''),
      20_000,
      200,
    );
    expect(await tick()).toBe(0);
  });
});
