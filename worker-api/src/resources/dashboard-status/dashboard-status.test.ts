import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { executions, reports } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, makeKey, makeOrg, makeUser } from '../../../test/fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { anchorMinutes, isStale, staleAt } from '../../engine/staleness.ts';
import { dashboardWith } from '../../../test/dashboard-data-helpers.ts';

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
    // The status object records them with its own client: parameters are stored as a JSON object, not as a string of JSON.
    const kinds = await db()
      .selectDistinct({ kind: sql<string>`jsonb_typeof(${executions.parameters})` })
      .from(executions)
      .where(
        inArray(
          executions.id,
          done.reports.map((r: any) => r.execution_id as string),
        ),
      );
    expect(kinds.map((k) => k.kind)).toEqual(['object']);
  });

  it('coalesces concurrent pollers: one execution per report for one parameter set', async () => {
    const parameters = { timerange: `${1_700_000_000 + Math.floor(Math.random() * 1_000_000)}~` };
    const answers = await Promise.all(Array.from({ length: 40 }, () => status({ parameters })));
    expect(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${JSON.stringify(a.json).slice(0, 200)}`)).toEqual([]);
    await settle({ parameters });
    const rows = await db()
      .select({ id: executions.id, report: executions.report_id })
      .from(executions)
      .where(and(eq(executions.organization_id, org.organization.id), inArray(executions.report_id, reportIds)));
    const ids = new Set(answers.flatMap((a) => a.json.reports.map((r: any) => r.execution_id)));
    expect(ids.size).toBe(reportIds.length);
    expect(rows.filter((r) => ids.has(r.id))).toHaveLength(reportIds.length);
  }, 90_000);

  // 60 requests at once each open their own client on the Hyperdrive path, and local Hyperdrive (unlike
  // Cloudflare's, which pools) opens a server connection for each: past the server's max_connections. The
  // DbPool path runs this test (npm test's "worker-api (db pool)" suite).
  it.skipIf((env as { DB_ACCESS?: string }).DB_ACCESS === 'hyperdrive')(
    'coalesces pollers of queries that never ran: exactly one execution per report',
    async () => {
      const tag = Math.random().toString(36).slice(2, 10);
      const board = await dashboardWith(
        org.organization.id,
        org.sampleDatasource.id,
        'Fresh',
        [0, 1, 2].map((i) => ({
          name: `R${i}`,
          sql: `select '${tag}' as tag, ${i} as n, pg_sleep(0.3)`,
        })),
      );
      const answers = await Promise.all(Array.from({ length: 60 }, () => call(`/dashboards/${board.id}/status`, { key, method: 'POST', body: {} })));
      expect(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${JSON.stringify(a.json).slice(0, 200)}`)).toEqual([]);
      // The object records an execution just after it answers: wait for the rows, then count them once
      // the queries (0.3 s each) have had time to finish, so a late duplicate would show.
      const count = () =>
        db()
          .select({ id: executions.id })
          .from(executions)
          .where(and(eq(executions.organization_id, org.organization.id), inArray(executions.report_id, board.reportIds)));
      for (let t = 0; t < 100 && (await count()).length < 3; t++) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 1_000));
      const rows = await count();
      expect(rows).toHaveLength(3);
      expect(new Set(answers.flatMap((a) => a.json.reports.map((r: any) => r.execution_id)))).toEqual(new Set(rows.map((r) => r.id)));
    },
    60_000,
  );

  it('refresh re-runs; a broken report reports its error without stopping the others', async () => {
    const before = await settle();
    expect((await call(`/dashboards/${dash}/refresh`, { key, method: 'POST', body: {} })).status).toBe(204);
    const after = await settle();
    const changed = after.reports.filter((r: any) => !before.reports.some((b: any) => b.execution_id === r.execution_id));
    expect(changed.length).toBe(reportIds.length);

    const broken = newId('report');
    const [tpl] = await db().select().from(reports).where(eq(reports.id, reportIds[0]!));
    await db()
      .insert(reports)
      .values({ ...tpl!, id: broken, name: 'Broken', sql_query: 'select nope from nowhere', created_at: new Date(), updated_at: new Date() });
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

describe('staleness: data_refresh_rate and data_refresh_anchor_time', () => {
  const at = (iso: string) => Date.parse(iso);
  it('without an anchor, data goes stale a refresh rate after it was computed', () => {
    expect(staleAt(at('2025-03-10T10:00:00Z'), 60, null, 'UTC')).toBe(at('2025-03-10T11:00:00Z'));
    expect(isStale(at('2025-03-10T10:00:00Z'), at('2025-03-10T10:59:59Z'), 60, null, 'UTC')).toBe(false);
    expect(isStale(at('2025-03-10T10:00:00Z'), at('2025-03-10T11:00:00Z'), 60, null, 'UTC')).toBe(true);
  });

  it("with an anchor, at the refresh points anchor + k × rate, in the organization's time zone", () => {
    // Daily at 06:00 Berlin (05:00 UTC in winter): data from 10:00 goes stale the next morning.
    expect(staleAt(at('2025-01-10T10:00:00Z'), 1440, '06:00', 'Europe/Berlin')).toBe(at('2025-01-11T05:00:00Z'));
    // Computed before today's anchor: stale at today's anchor.
    expect(staleAt(at('2025-01-10T03:00:00Z'), 1440, '06:00', 'Europe/Berlin')).toBe(at('2025-01-10T05:00:00Z'));
    // Hourly at :15.
    expect(staleAt(at('2025-01-10T10:20:00Z'), 60, '00:15', 'UTC')).toBe(at('2025-01-10T11:15:00Z'));
    expect(staleAt(at('2025-01-10T10:10:00Z'), 60, '00:15', 'UTC')).toBe(at('2025-01-10T10:15:00Z'));
    // Summer time moves the anchor's instant.
    expect(staleAt(at('2025-07-10T10:00:00Z'), 1440, '06:00', 'Europe/Berlin')).toBe(at('2025-07-11T04:00:00Z'));
    // Across both DST changes a daily anchor keeps its wall-clock time (core/src/time.ts's one rule).
    expect(staleAt(at('2025-03-29T10:00:00Z'), 1440, '06:00', 'Europe/Berlin')).toBe(at('2025-03-30T04:00:00Z'));
    expect(staleAt(at('2025-10-25T10:00:00Z'), 1440, '06:00', 'Europe/Berlin')).toBe(at('2025-10-26T05:00:00Z'));
    // Every second day from the data's day.
    expect(staleAt(at('2025-03-29T10:00:00Z'), 2880, '06:00', 'Europe/Berlin')).toBe(at('2025-03-31T04:00:00Z'));
    // An anchor on a repeated wall-clock time is its first occurrence (02:30 CEST on 2025-10-26).
    expect(staleAt(at('2025-10-25T10:00:00Z'), 1440, '02:30', 'Europe/Berlin')).toBe(at('2025-10-26T00:30:00Z'));
    expect(anchorMinutes('6:00')).toBeNull();
    expect(anchorMinutes('23:59')).toBe(1439);
  });
});

/*
 * Issue 21: the data call (POST /dashboards/{id}/data) and the status poll (the DashboardStatus object)
 * start executions through one path (engine/execution-row.ts) and name results with one identity
 * (engine/identity.ts compileIdentified), so for the same inputs each reuses what the other ran.
 */
describe('the data call and the status poll share executions', () => {
  async function board(label: string) {
    // A literal of its own makes the query's identity new, so nothing stored before this test answers it.
    const nonce = newId('report').slice(-12);
    const d = await dashboardWith(org.organization.id, org.sampleDatasource.id, `Shared ${label}`, [
      { name: 'Orders', sql: `SELECT count(*) AS orders, '${nonce}' AS tag FROM orders` },
      { name: 'Customers', sql: `SELECT count(*) AS customers, '${nonce}' AS tag FROM customers` },
    ]);
    return d.id as string;
  }
  const dataCall = (id: string) => call(`/dashboards/${id}/data`, { key, method: 'POST', body: { data_format: 'json' } });
  async function settled(id: string) {
    const until = Date.now() + 60_000;
    for (;;) {
      const res = await call(`/dashboards/${id}/status`, { key, method: 'POST', body: {} });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      const reps = res.json.reports as any[];
      if (reps.every((r) => !r.running && r.result_status !== 'running') || Date.now() > until) return reps;
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  const executionsOf = async (reportIds: string[]) =>
    db()
      .select({ id: executions.id, report: executions.report_id })
      .from(executions)
      .where(and(eq(executions.organization_id, org.organization.id), inArray(executions.report_id, reportIds)));

  it('a data call after the poll reuses the executions the status object ran', async () => {
    const id = await board('poll first');
    const polled = await settled(id);
    expect(polled.map((r) => r.result_status)).toEqual(['success', 'success']);
    const res = await dataCall(id);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const byReport = new Map(polled.map((r) => [r.report_id, r.execution_id]));
    expect(res.json.reports).toHaveLength(2);
    for (const r of res.json.reports) expect(r.execution_id, r.name).toBe(byReport.get(r.report_id));
    expect(await executionsOf([...byReport.keys()])).toHaveLength(2);
  });

  it('a poll after the data call adopts the executions the data call ran, without running again', async () => {
    const id = await board('data first');
    const res = await dataCall(id);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const byReport = new Map((res.json.reports as any[]).map((r) => [r.report_id, r.execution_id]));
    expect(byReport.size).toBe(2);
    const first = await call(`/dashboards/${id}/status`, { key, method: 'POST', body: {} });
    expect(first.status).toBe(200);
    for (const r of first.json.reports) {
      expect(r).toMatchObject({ execution_id: byReport.get(r.report_id), result_status: 'success', running: false, data_current: true });
    }
    expect(await executionsOf([...byReport.keys()])).toHaveLength(2);
  });
});
