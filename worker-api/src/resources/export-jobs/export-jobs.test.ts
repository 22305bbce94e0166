import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { apiKeys, auditLog, exportJobs } from '@cairn/db';
import { newId, verifyDataToken } from '@cairn/core';
import { call, db, jsonApi, keyIdOf, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let other: CreateOrganizationResult;
let key: string;
let orgId: string;

type Job = Partial<typeof exportJobs.$inferInsert>;
async function job(values: Job & { organization_id?: string } = {}) {
  const id = newId('export_job');
  await db()
    .insert(exportJobs)
    .values({
      id,
      organization_id: orgId,
      kind: 'dashboard_pdf',
      dashboard_id: org.sampleDashboard.id,
      ...values,
    });
  return id;
}
/** The api_keys row id of a key secret (what jobs record as their creator). */
async function keyRowId(secret: string) {
  return (
    await db()
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.key_id, keyIdOf(secret)))
  )[0]!.id;
}

beforeAll(async () => {
  [org, other] = await Promise.all([makeOrg('exports'), makeOrg('exports-other')]);
  orgId = org.organization.id;
  key = await makeKey(orgId);
});

describe('GET /export_jobs/{id}', () => {
  it('shows a finished job with a short-lived file URL and no error message', async () => {
    const id = await job({ job_status: 'success', file_key: 'eu/exports/abc.pdf', expires_at: new Date(Date.now() + 3_600_000) });
    const res = await call(`/export_jobs/${id}`, { key });
    expect(res.status).toBe(200);
    expectJsonApiDocument(res.json);
    const d = res.json.data;
    expect(d).toMatchObject({ type: 'export_jobs', id, attributes: { job_status: 'success' } });
    expect(d.attributes).not.toHaveProperty('error_message');
    expect(d.relationships.dashboard.data).toEqual({ type: 'dashboards', id: org.sampleDashboard.id });
    const url = new URL(d.attributes.file_url);
    expect(url.origin).toBe('http://data.test');
    expect(url.pathname).toBe(`/exports/${id}`);
    const claims = await verifyDataToken(url.searchParams.get('token')!, env.DATA_TOKEN_SECRET, { region: 'eu' });
    expect(claims).toMatchObject({ org: orgId, key: 'eu/exports/abc.pdf', kind: 'data' });
    expect(claims.exp * 1000 - Date.now()).toBeLessThanOrEqual(5 * 60_000);
  });

  it('shows the error message of a failed job, and neither field while it runs or once the file expired', async () => {
    const failed = await call(`/export_jobs/${await job({ job_status: 'error', error_message: 'Report "Totals" failed: timeout' })}`, { key });
    expect(failed.json.data.attributes).toMatchObject({ job_status: 'error', error_message: 'Report "Totals" failed: timeout' });
    expect(failed.json.data.attributes).not.toHaveProperty('file_url');
    for (const status of ['started', 'running'] as const) {
      const res = await call(`/export_jobs/${await job({ job_status: status })}`, { key });
      expect(res.json.data.attributes.job_status).toBe(status);
      expect(res.json.data.attributes).not.toHaveProperty('file_url');
      expect(res.json.data.attributes).not.toHaveProperty('error_message');
    }
    const expired = await call(`/export_jobs/${await job({ job_status: 'success', file_key: 'k', expires_at: new Date(Date.now() - 1000) })}`, { key });
    expect(expired.json.data.attributes.job_status).toBe('success');
    expect(expired.json.data.attributes).not.toHaveProperty('file_url');
  });

  it("answers 404 for another organization's job and an unknown id", async () => {
    const otherJob = newId('export_job');
    await db()
      .insert(exportJobs)
      .values({ id: otherJob, organization_id: other.organization.id, kind: 'dashboard_png', dashboard_id: other.sampleDashboard.id });
    for (const id of [otherJob, 'exp_unknown']) {
      const res = await call(`/export_jobs/${id}`, { key });
      expect(res.status).toBe(404);
      expectJsonApiDocument(res.json);
      expect((await call(`/export_jobs/${id}`, { key, method: 'DELETE' })).status).toBe(404);
    }
  });

  it("needs View Dashboards on the job's dashboard (a report job: the report's)", async () => {
    const reportJob = await job({ kind: 'report_csv', dashboard_id: null, report_id: org.sampleDashboard.reports[0]!.id });
    const res = await call(`/export_jobs/${reportJob}`, { key });
    expect(res.status).toBe(200);
    expect(res.json.data.relationships.report.data).toEqual({ type: 'reports', id: org.sampleDashboard.reports[0]!.id });
    expect((await call(`/export_jobs/${reportJob}`, { key: await makeKey(orgId, only('view_users')) })).status).toBe(403);
    const elsewhere = (await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Elsewhere' } }, key)).json.data.id;
    const restricted = await makeKey(orgId, [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: elsewhere }] }]);
    expect((await call(`/export_jobs/${reportJob}`, { key: restricted })).status).toBe(404); // its dashboard is invisible to the key
    expect((await call(`/export_jobs/${await job({ dashboard_id: elsewhere })}`, { key: restricted })).status).toBe(200);
    // A job on a private dashboard is invisible to users who cannot see the dashboard.
    const owner = await makeUser(orgId, 'analyst');
    const privateDash = (await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Private' } }, { session: owner.session })).json.data
      .id;
    const privateJob = await job({ dashboard_id: privateDash });
    const peer = await makeUser(orgId, 'viewer');
    expect((await call(`/export_jobs/${privateJob}`, { session: peer.session })).status).toBe(404);
    expect((await call(`/export_jobs/${privateJob}`, { session: owner.session })).status).toBe(200);
  });
});

describe('DELETE /export_jobs/{id}', () => {
  it('deletes with Manage Dashboards, and audits it', async () => {
    const id = await job({ job_status: 'running' });
    const res = await call(`/export_jobs/${id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(204);
    expect((await call(`/export_jobs/${id}`, { key })).status).toBe(404);
    const log = await db().select().from(auditLog).where(eq(auditLog.resource_id, id));
    expect(log).toMatchObject([{ action: 'delete', resource_type: 'export_jobs', actor_type: 'api_key' }]);
  });

  it('lets the key or user that started a job delete it with View Dashboards alone; others need Manage Dashboards', async () => {
    const viewKey = await makeKey(orgId, only('view_dashboards'));
    const byKey = await job({ created_by: await keyRowId(viewKey) });
    const notMine = await job({ created_by: 'key_someone_else' });
    const refused = await call(`/export_jobs/${notMine}`, { key: viewKey, method: 'DELETE' });
    expect(refused.status).toBe(403);
    expectJsonApiDocument(refused.json);
    expect((await call(`/export_jobs/${byKey}`, { key: viewKey, method: 'DELETE' })).status).toBe(204);

    const viewer = await makeUser(orgId, 'viewer');
    const byViewer = await job({ created_by: viewer.id });
    expect((await call(`/export_jobs/${notMine}`, { session: viewer.session, method: 'DELETE' })).status).toBe(403);
    expect((await call(`/export_jobs/${byViewer}`, { session: viewer.session, method: 'DELETE' })).status).toBe(204);
    const analyst = await makeUser(orgId, 'analyst');
    expect((await call(`/export_jobs/${notMine}`, { session: analyst.session, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/export_jobs/${await job()}`, { key: await makeKey(orgId, only('view_users')), method: 'DELETE' })).status).toBe(403);
  });
});
