import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { executions, reports } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, makeKey, makeOrg, makeUser } from './fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let dash: string;
let reportIds: string[];
const status = (body: unknown = {}, auth: { key?: string; session?: string } = { key }) =>
  call(`/dashboards/${dash}/status`, { ...auth, method: 'POST', body });

async function settle(body: unknown = {}, ms = 60_000) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await status(body);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    if (res.json.reports.every((r: any) => !r.running && r.result_status !== 'running') || Date.now() > until) return res.json;
    await new Promise((r) => setTimeout(r, 150));
  }
}

beforeAll(async () => {
  org = await makeOrg('status');
  key = await makeKey(org.organization.id);
  dash = org.sampleDashboard.id;
  reportIds = org.sampleDashboard.reports.map((r) => r.id);
});

describe('dashboard status', () => {
  it('starts one execution per report, then hands out data keys with tokens; a second poll reuses them', async () => {
    const first = await status();
    expect(first.status).toBe(200);
    expect(first.json.reports.map((r: any) => r.report_id).sort()).toEqual([...reportIds].sort());
    expect(first.json.status_check_delay).toBeLessThan(60);
    const done = await settle();
    for (const r of done.reports) {
      expect(r.result_status, JSON.stringify(r)).toBe('success');
      expect(r).toMatchObject({ data_current: true, running: false, execution_status: 'success' });
      expect(r.data_key).toContain(r.execution_id);
      expect(r.data_access_token).toBeTruthy();
    }
    expect(done.status_check_delay).toBe(60);
    expect(done.data_keys.length).toBe(done.reports.length);
    const again = await status();
    expect(again.json.reports.map((r: any) => r.execution_id).sort()).toEqual(done.reports.map((r: any) => r.execution_id).sort());
  });

  it('coalesces concurrent pollers: one execution per report for one parameter set', async () => {
    const parameters = { timerange: `${1_700_000_000 + Math.floor(Math.random() * 1_000_000)}~` };
    const answers = await Promise.all(Array.from({ length: 40 }, () => status({ parameters })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    await settle({ parameters });
    const rows = await db().select({ id: executions.id, report: executions.report_id }).from(executions)
      .where(and(eq(executions.organization_id, org.organization.id), inArray(executions.report_id, reportIds)));
    const ids = new Set(answers.flatMap((a) => a.json.reports.map((r: any) => r.execution_id)));
    expect(ids.size).toBe(reportIds.length);
    expect(rows.filter((r) => ids.has(r.id))).toHaveLength(reportIds.length);
  }, 90_000);

  it('refresh re-runs; a broken report reports its error without stopping the others', async () => {
    const before = await settle();
    expect((await call(`/dashboards/${dash}/refresh`, { key, method: 'POST', body: {} })).status).toBe(204);
    const after = await settle();
    const changed = after.reports.filter((r: any) => !before.reports.some((b: any) => b.execution_id === r.execution_id));
    expect(changed.length).toBe(reportIds.length);

    const broken = newId('report');
    const [tpl] = await db().select().from(reports).where(eq(reports.id, reportIds[0]!));
    await db().insert(reports).values({ ...tpl!, id: broken, name: 'Broken', sql_query: 'select nope from nowhere', created_at: new Date(), updated_at: new Date() });
    await new Promise((r) => setTimeout(r, 3_100)); // the object re-reads the dashboard every 3 s
    const withBroken = await settle({ refresh_data: false });
    const b = withBroken.reports.find((r: any) => r.report_id === broken);
    expect(b.result_status).toBe('error');
    expect(b.error.code).toBe('query_error');
    expect(b.error.message).toMatch(/nowhere/);
    expect(withBroken.reports.filter((r: any) => r.report_id !== broken).every((r: any) => r.result_status === 'success')).toBe(true);
    await db().delete(reports).where(eq(reports.id, broken));
  });

  it('report refresh returns the new execution id', async () => {
    const res = await call(`/reports/${reportIds[0]}/refresh`, { key, method: 'POST', body: {} });
    expect(res.status).toBe(200);
    expect(res.json.execution_id).toMatch(/^exe_/);
  });

  it('permissions and bad input', async () => {
    const other = await makeOrg('status-other');
    expect((await status({}, { key: await makeKey(other.organization.id) })).status).toBe(404);
    const viewer = await makeUser(org.organization.id, 'viewer');
    // The sample dashboard is shared with all users.
    expect((await status({}, { session: viewer.session })).status).toBe(200);
    const bad = await status({ parameters: { aggregation: 'fortnight' } });
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].source.pointer).toBe('/parameters/aggregation');
  });
});
