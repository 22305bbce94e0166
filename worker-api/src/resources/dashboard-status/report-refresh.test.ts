/**
 * POST /reports/{id}/refresh (issue 15): re-runs that report alone and returns its execution id; the
 * dashboard's other reports keep their results. Permissions and switches as before.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { executions, reports } from '@cairn/db';
import { call, db, makeKey, makeOrg } from '../../../test/fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let reportIds: string[];

beforeAll(async () => {
  org = await makeOrg('report-refresh');
  key = await makeKey(org.organization.id);
  reportIds = org.sampleDashboard.reports.map((r) => r.id);
});

async function settle() {
  const until = Date.now() + 60_000;
  for (;;) {
    const res = await call(`/dashboards/${org.sampleDashboard.id}/status`, { key, method: 'POST', body: {} });
    expect(res.status).toBe(200);
    if (res.json.reports.every((r: any) => !r.running && r.result_status !== 'running') || Date.now() > until) return res.json;
    await new Promise((r) => setTimeout(r, 150));
  }
}

const runsOf = async () => {
  const rows = await db()
    .select({ report: executions.report_id })
    .from(executions)
    .where(and(eq(executions.organization_id, org.organization.id), inArray(executions.report_id, reportIds)));
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.report!, (counts.get(r.report!) ?? 0) + 1);
  return counts;
};

describe('POST /reports/{id}/refresh', () => {
  it('re-runs only that report', async () => {
    await settle();
    const before = await runsOf();
    const target = reportIds[0]!;
    const res = await call(`/reports/${target}/refresh`, { key, method: 'POST', body: {} });
    expect(res.status).toBe(200);
    expect(res.json.execution_id).toMatch(/^exe_/);
    const [exe] = await db().select().from(executions).where(eq(executions.id, res.json.execution_id));
    expect(exe!.report_id).toBe(target);
    const after = await runsOf();
    expect(after.get(target)).toBe((before.get(target) ?? 0) + 1);
    for (const id of reportIds.slice(1)) expect(after.get(id) ?? 0, id).toBe(before.get(id) ?? 0);
    // A second refresh while the first may still run starts no run for the others either.
    await call(`/reports/${reportIds[1]}/refresh`, { key, method: 'POST', body: {} });
    const third = await runsOf();
    for (const id of reportIds.slice(2)) expect(third.get(id) ?? 0, id).toBe(before.get(id) ?? 0);
  });

  it('hands out the execution id only once its row exists (GET /executions/{id} at once is not a 404)', async () => {
    await settle();
    // Hold every insert into executions (SHARE blocks them; reads go on) for a while: the refresh must
    // not answer with an id whose row is still waiting to be written.
    let locked!: () => void;
    const lockHeld = new Promise<void>((r) => {
      locked = r;
    });
    const holdMs = 1500;
    const holder = db().transaction(async (tx) => {
      await tx.execute(sql`lock table executions in share mode`);
      locked();
      await new Promise((r) => setTimeout(r, holdMs));
    });
    await lockHeld;
    const started = Date.now();
    const res = await call(`/reports/${reportIds[0]}/refresh`, { key, method: 'POST', body: {} });
    const waited = Date.now() - started;
    expect(res.status).toBe(200);
    const id = res.json.execution_id as string;
    const [exe] = await db().select().from(executions).where(eq(executions.id, id));
    expect(exe?.report_id, `row of ${id} after ${waited} ms`).toBe(reportIds[0]);
    const got = await call(`/executions/${id}`, { key });
    expect(got.status).toBe(200);
    await holder;
  });

  it('answers 404 for another organization, 422 when switched off or for a bad value', async () => {
    const other = await makeOrg('report-refresh-other');
    const otherKey = await makeKey(other.organization.id);
    expect((await call(`/reports/${reportIds[0]}/refresh`, { key: otherKey, method: 'POST', body: {} })).status).toBe(404);
    expect((await call('/reports/rep_doesnotexist/refresh', { key, method: 'POST', body: {} })).status).toBe(404);
    const bad = await call(`/reports/${reportIds[0]}/refresh`, { key, method: 'POST', body: { parameters: { aggregation: 'fortnight' } } });
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].source.pointer).toBe('/parameters/aggregation');
    await db().update(reports).set({ refresh_enabled: false }).where(eq(reports.id, reportIds[2]!));
    const off = await call(`/reports/${reportIds[2]}/refresh`, { key, method: 'POST', body: {} });
    expect(off.status).toBe(422);
    expect(off.json.errors[0].code).toBe('invalid_state');
  });
});
