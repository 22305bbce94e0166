/**
 * Issue 15: the zone in force is part of every result's identity (engine/identity.ts, ARCHITECTURE D40).
 * Results computed for one viewer's zone are never reused for another zone: not by data calls, not by
 * the status object (which adopts stored results), not by execution handles; each result says the
 * zone it was computed in.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import postgres from 'postgres';
import { eq } from 'drizzle-orm';
import { dashboards, filters, dashboardFilters, reports, results } from '@cairn/db';
import { newId } from '@cairn/core';
import { resolveRelative } from '../../../remix-app/app/lib/filters-range.ts';
import { formatDay } from '@cairn/core/time';
import { call, db, makeKey, makeOrg } from '../../test/fixtures.ts';
import { dataServer } from '../../test/dashboard-data-helpers.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

const ZONES = ['UTC', 'Asia/Tokyo', 'America/Los_Angeles'] as const;

let org: CreateOrganizationResult;
let key: string;
/** A dashboard whose viewers pick their zone (time_zone_config input), with a date-time range filter `placed`. */
let board: string;
let shop: postgres.Sql | null = null;
const shopSql = () => (shop ??= postgres(env.SAMPLE_DB.connectionString, { max: 1, fetch_types: false, onnotice: () => {} }));

beforeAll(async () => {
  org = await makeOrg('tz-identity');
  key = await makeKey(org.organization.id);
  board = newId('dashboard');
  await db()
    .insert(dashboards)
    .values({
      id: board,
      organization_id: org.organization.id,
      name: 'Zones',
      time_zone_config: { type: 'input' },
      layout: [],
    });
  const filterId = newId('filter');
  await db().insert(filters).values({
    id: filterId,
    organization_id: org.organization.id,
    datasource_id: org.sampleDatasource.id,
    display_name: 'Placed',
    variable_name: 'placed',
    control_type: 'date_time_range',
    value_type: 'DATE_TIME',
  });
  await db().insert(dashboardFilters).values({ organization_id: org.organization.id, dashboard_id: board, filter_id: filterId, position: 0 });
});

async function reportOn(dashboardId: string, name: string, sql_query: string): Promise<string> {
  const id = newId('report');
  await db().insert(reports).values({
    id,
    organization_id: org.organization.id,
    dashboard_id: dashboardId,
    datasource_id: org.sampleDatasource.id,
    name,
    sql_query,
  });
  return id;
}

const data = (id: string, parameters: Record<string, unknown> = {}) => call(`/reports/${id}/data`, { key, method: 'POST', body: { parameters } });

async function rowsOf(handle: { data_key: string; data_access_token: string }) {
  const res = await dataServer(`/data/${handle.data_key}`, { headers: { authorization: `Data ${handle.data_access_token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { rows: unknown[][]; time_zone: string; execution_id: string };
}

const storedZone = async (dataKey: string) => (await db().select({ tz: results.time_zone }).from(results).where(eq(results.data_key, dataKey)))[0]?.tz;

describe("the time zone is part of a result's identity", () => {
  it('POST /reports/{id}/data: SQL the zone does not change still gets one result per zone, each marked with its zone', async () => {
    const id = await reportOn(board, 'No zone in the SQL', 'SELECT count(*) AS orders FROM orders o');
    const handles = [];
    for (const tz of ZONES) {
      const res = await data(id, { tz });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.time_zone).toBe(tz);
      expect(await storedZone(res.json.data_key)).toBe(tz);
      expect((await rowsOf(res.json)).time_zone).toBe(tz);
      handles.push(res.json);
    }
    expect(new Set(handles.map((h) => h.data_key)).size).toBe(3);
    expect(new Set(handles.map((h) => h.execution_id)).size).toBe(3);
    // Within a zone the fresh result is still reused.
    for (const [i, tz] of ZONES.entries()) {
      const again = await data(id, { tz });
      expect(again.json.execution_id, tz).toBe(handles[i]!.execution_id);
      expect(again.json.time_zone).toBe(tz);
    }
    // No tz: the dashboard's input setting falls back to the organization's zone (UTC), the same result as tz=UTC.
    const none = await data(id);
    expect(none.json).toMatchObject({ execution_id: handles[0]!.execution_id, time_zone: 'UTC' });
  });

  it('the response names the zone actually used: a dashboard that ignores tz shares one result, marked with its own zone', async () => {
    const fixed = newId('dashboard');
    await db()
      .insert(dashboards)
      .values({
        id: fixed,
        organization_id: org.organization.id,
        name: 'Fixed',
        layout: [],
        time_zone_config: { type: 'fixed', fixed_time_zone: 'Europe/Berlin' },
      });
    const id = await reportOn(fixed, 'Fixed zone', 'SELECT count(*) AS orders FROM orders o');
    const answers = [];
    for (const tz of ZONES) answers.push((await data(id, { tz })).json);
    expect(answers.map((a) => a.time_zone)).toEqual(['Europe/Berlin', 'Europe/Berlin', 'Europe/Berlin']);
    expect(new Set(answers.map((a) => a.execution_id)).size).toBe(1);
    expect(await storedZone(answers[0].data_key)).toBe('Europe/Berlin');
  });

  it("a DST-crossing relative range in three zones: three executions with each zone's bounds and totals", async () => {
    const id = await reportOn(
      board,
      'Orders in range',
      'SELECT count(*)::int AS orders, {placed.start} AS range_start, {placed.end} AS range_end FROM orders o WHERE {[o.ordered_at]=placed}',
    );
    // "Previous month" as the filter bar resolves it on 15 April 2026: March 2026, which crosses the US
    // change to summer time (8 March) and the European one (29 March, its last Sunday).
    const expected: Record<string, { start: string; end: string }> = {
      UTC: { start: '2026-03-01T00:00:00Z', end: '2026-04-01T00:00:00Z' },
      'Asia/Tokyo': { start: '2026-02-28T15:00:00Z', end: '2026-03-31T15:00:00Z' },
      // PST (−8) at the start, PDT (−7) at the end.
      'America/Los_Angeles': { start: '2026-03-01T08:00:00Z', end: '2026-04-01T07:00:00Z' },
    };
    const seen = new Map<string, { execution: string; orders: number }>();
    for (const tz of ZONES) {
      const range = resolveRelative('previous_month', Date.UTC(2026, 3, 15, 12), tz);
      expect(range).toMatchObject({ kind: 'days' });
      if (range?.kind !== 'days') throw new Error('days expected');
      const selected = [formatDay(range.startDay), formatDay(range.endDay)];
      expect(selected).toEqual(['2026-03-01', '2026-03-31']);
      const res = await data(id, { tz, filters: [{ variable_name: 'placed', selected_values: selected }] });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.time_zone).toBe(tz);
      const out = await rowsOf(res.json);
      expect(out.time_zone).toBe(tz);
      const [orders, start, end] = out.rows[0] as [number, string, string];
      // The bounds are written as the data time zone's (UTC) wall clock with its offset.
      const bound = (s: string) => new Date(s.replace(' ', 'T').replace(/\+00$/, 'Z')).toISOString().replace('.000', '');
      expect({ start: bound(start), end: bound(end) }, tz).toEqual(expected[tz]);
      const [truth] = await shopSql()<{ n: number }[]>`select count(*)::int as n from orders
        where ordered_at >= ${expected[tz]!.start}::timestamptz and ordered_at < ${expected[tz]!.end}::timestamptz`;
      expect(orders, tz).toBe(truth!.n);
      seen.set(tz, { execution: res.json.execution_id, orders });
    }
    expect(new Set([...seen.values()].map((s) => s.execution)).size).toBe(3);
    expect(new Set([...seen.values()].map((s) => s.orders)).size).toBe(3);
  });

  it('"previous year" on the sample dashboard: UTC and Los Angeles get executions of their own', async () => {
    await db()
      .update(dashboards)
      .set({ time_zone_config: { type: 'input' } })
      .where(eq(dashboards.id, org.sampleDashboard.id));
    const total = org.sampleDashboard.reports.find((r) => (r.chart_configuration as { type: string }).type === 'number')!;
    const selected = ['2025-01-01', '2025-12-31'];
    const utc = await data(total.id, { tz: 'UTC', filters: [{ variable_name: 'order_date', selected_values: selected }] });
    const la = await data(total.id, { tz: 'America/Los_Angeles', filters: [{ variable_name: 'order_date', selected_values: selected }] });
    expect([utc.status, la.status]).toEqual([200, 200]);
    expect(la.json.execution_id).not.toBe(utc.json.execution_id);
    expect([utc.json.time_zone, la.json.time_zone]).toEqual(['UTC', 'America/Los_Angeles']);
  });

  it("GET /executions/{id}/data names the result's zone", async () => {
    const id = await reportOn(board, 'Handle', 'SELECT 1 AS one');
    const tokyo = await data(id, { tz: 'Asia/Tokyo' });
    const handle = await call(`/executions/${tokyo.json.execution_id}/data`, { key });
    expect(handle.status).toBe(200);
    expect(handle.json).toMatchObject({ data_key: tokyo.json.data_key, time_zone: 'Asia/Tokyo' });
  });

  it('the status object adopts only results of the same zone', async () => {
    const status = newId('dashboard');
    await db()
      .insert(dashboards)
      .values({ id: status, organization_id: org.organization.id, name: 'Status zones', time_zone_config: { type: 'input' }, layout: [] });
    const rid = await reportOn(status, 'Polled', 'SELECT count(*) AS orders FROM orders o');
    const settled = async (tz: string) => {
      const until = Date.now() + 20_000;
      for (;;) {
        const res = await call(`/dashboards/${status}/status`, { key, method: 'POST', body: { parameters: { tz } } });
        expect(res.status, JSON.stringify(res.json)).toBe(200);
        const r = res.json.reports.find((x: { report_id: string }) => x.report_id === rid);
        if ((r && !r.running && r.result_status === 'success') || Date.now() > until) return r;
        await new Promise((ok) => setTimeout(ok, 100));
      }
    };
    const utc = await settled('UTC');
    expect(utc.result_status).toBe('success');
    const tokyo = await settled('Asia/Tokyo');
    expect(tokyo.result_status).toBe('success');
    expect(tokyo.execution_id).not.toBe(utc.execution_id);
    expect(await storedZone(utc.data_key)).toBe('UTC');
    expect(await storedZone(tokyo.data_key)).toBe('Asia/Tokyo');
    // A data call in Tokyo reuses the status object's Tokyo result, not the UTC one.
    const viaData = await data(rid, { tz: 'Asia/Tokyo' });
    expect(viaData.json.execution_id).toBe(tokyo.execution_id);
  });
});
