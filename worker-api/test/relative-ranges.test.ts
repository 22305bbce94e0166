/**
 * Relative date ranges outside the filter bar (issue 15): a range filter or the built-in timerange may
 * hold a token such as `last_7_days` in a data call's parameters, in a dashboard's default_parameters
 * and in a schedule's parameters. The API resolves it with core's resolver (sql/relative.ts): data
 * calls when they run, in the zone in force; schedule sends at send time, in the schedule's zone.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { dashboardFilters, dashboards, filters, reports } from '@cairn/db';
import { newId, resolveRelative } from '@cairn/core';
import { formatDay } from '@cairn/core/time';
import { call, db, jsonApi, makeKey, makeOrg } from './fixtures.ts';
import { dataServer } from './dashboard-data-helpers.ts';
import { backgroundContext, viewerPrincipal } from '../src/resources/export-jobs/background.ts';
import { sendParameters } from '../src/resources/dashboard-schedules/deliver.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let board: string;
let report: string;

beforeAll(async () => {
  org = await makeOrg('relative-ranges');
  key = await makeKey(org.organization.id);
  board = newId('dashboard');
  await db()
    .insert(dashboards)
    .values({ id: board, organization_id: org.organization.id, name: 'Relative', time_zone_config: { type: 'input' }, layout: [] });
  for (const [variable, control, type] of [
    ['day', 'date_range', 'DATE'],
    ['placed', 'date_time_range', 'DATE_TIME'],
    ['word', 'input', 'TEXT'],
  ] as const) {
    const id = newId('filter');
    await db().insert(filters).values({
      id,
      organization_id: org.organization.id,
      datasource_id: org.sampleDatasource.id,
      variable_name: variable,
      control_type: control,
      value_type: type,
    });
    await db().insert(dashboardFilters).values({ organization_id: org.organization.id, dashboard_id: board, filter_id: id });
  }
  report = newId('report');
  await db().insert(reports).values({
    id: report,
    organization_id: org.organization.id,
    dashboard_id: board,
    datasource_id: org.sampleDatasource.id,
    name: 'Bounds',
    sql_query: 'SELECT {day.start}::text AS day_start, {day.end}::text AS day_end, {timerange.start}::text AS tr_start',
  });
});

const data = (parameters: Record<string, unknown>) => call(`/reports/${report}/data`, { key, method: 'POST', body: { parameters } });
async function row(parameters: Record<string, unknown>) {
  const res = await data(parameters);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const got = await dataServer(`/data/${res.json.data_key}`, { headers: { authorization: `Data ${res.json.data_access_token}` } });
  return ((await got.json()) as { rows: unknown[][] }).rows[0]!;
}
const days = (token: string, zone: string) => {
  const r = resolveRelative(token, Date.now(), zone)!;
  if (r.kind !== 'days') throw new Error('days expected');
  return { start: formatDay(r.startDay), endExclusive: formatDay(r.endDay + 1) };
};

describe('relative ranges in data calls and default_parameters', () => {
  it('a date range filter of last_7_days runs as the seven days ending today in the zone in force', async () => {
    for (const tz of ['Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      const [start, end] = await row({ tz, filters: [{ variable_name: 'day', selected_values: ['last_7_days'] }] });
      const want = days('last_7_days', tz);
      expect(start, tz).toBe(want.start);
      expect(end, tz).toBe(want.endExclusive);
    }
  });

  it('the built-in timerange takes a token too', async () => {
    const [, , trStart] = await row({ tz: 'UTC', timerange: 'previous_month' });
    expect(String(trStart)).toContain(days('previous_month', 'UTC').start);
  });

  it("tokens in the dashboard's default_parameters are resolved when the data runs", async () => {
    const saved = await jsonApi(
      `/dashboards/${board}`,
      'PATCH',
      { type: 'dashboards', id: board, attributes: { default_parameters: { filters: [{ variable_name: 'day', selected_values: ['yesterday'] }] } } },
      key,
    );
    expect(saved.status, JSON.stringify(saved.json)).toBe(200);
    expect(saved.json.data.attributes.default_parameters.filters[0].selected_values).toEqual(['yesterday']);
    try {
      const [start, end] = await row({ tz: 'UTC' });
      expect(start).toBe(days('yesterday', 'UTC').start);
      expect(end).toBe(days('yesterday', 'UTC').endExclusive);
      // A value given in the call still wins over the default.
      const [given] = await row({ tz: 'UTC', filters: [{ variable_name: 'day', selected_values: ['2024-02-01~2024-02-29'] }] });
      expect(given).toBe('2024-02-01');
    } finally {
      await db().update(dashboards).set({ default_parameters: {} }).where(eq(dashboards.id, board));
    }
  });

  it('refuses a token that does not fit the filter: hours on a date range, a misspelt token', async () => {
    const hours = await data({ filters: [{ variable_name: 'day', selected_values: ['last_24_hours'] }] });
    expect(hours.status).toBe(422);
    expect(hours.json.errors[0]).toMatchObject({ code: 'invalid_attribute', source: { pointer: '/parameters/filters/0/selected_values' } });
    const typo = await data({ filters: [{ variable_name: 'day', selected_values: ['last_7_dayz'] }] });
    expect(typo.status).toBe(422);
  });
});

describe('relative ranges in schedules', () => {
  it("are resolved at send time in the schedule's zone; other filters and fixed ranges are kept", async () => {
    const bg = backgroundContext(env, viewerPrincipal(org.organization.id, board, 'test'), () => {});
    try {
      const now = new Date('2026-03-10T12:00:00Z'); // 02:00 on the 11th in Kiritimati (+14), 01:00 on the 10th in Pago Pago (−11)
      const parameters = {
        timerange: 'today',
        filters: [
          { variable_name: 'day', selected_values: ['yesterday'] },
          { variable_name: 'placed', selected_values: ['last_1_hours'] },
          { variable_name: 'word', selected_values: ['today'] },
        ],
      };
      const east = await sendParameters(bg.ctx, { parameters, time_zone: 'Pacific/Kiritimati' }, { id: board, default_parameters: {} }, now);
      const west = await sendParameters(bg.ctx, { parameters, time_zone: 'Pacific/Pago_Pago' }, { id: board, default_parameters: {} }, now);
      expect(east.timerange).toBe('2026-03-11~2026-03-11');
      expect(west.timerange).toBe('2026-03-10~2026-03-10');
      const pick = (p: typeof east, v: string) => p.filters!.find((f) => f.variable_name === v)!.selected_values;
      expect(pick(east, 'day')).toEqual(['2026-03-10~2026-03-10']);
      expect(pick(west, 'day')).toEqual(['2026-03-09~2026-03-09']);
      const hour = `${Date.parse('2026-03-10T11:00:00Z') / 1000}~${Date.parse('2026-03-10T12:00:00Z') / 1000}`;
      expect(pick(east, 'placed')).toEqual([hour]);
      expect(pick(east, 'word')).toEqual(['today']);
      // The dashboard's defaults are resolved the same way; the schedule's own values win.
      const fromDefaults = await sendParameters(
        bg.ctx,
        { parameters: {}, time_zone: 'Pacific/Pago_Pago' },
        { id: board, default_parameters: { filters: [{ variable_name: 'day', selected_values: ['this_month'] }] } },
        now,
      );
      expect(pick(fromDefaults, 'day')).toEqual(['2026-03-01~2026-03-31']);
      // Without a zone of its own, the organization's (UTC for a new organization) applies.
      const orgZone = await sendParameters(bg.ctx, { parameters, time_zone: null }, { id: board, default_parameters: {} }, now);
      expect(orgZone.timerange).toBe('2026-03-10~2026-03-10');
    } finally {
      await bg.close();
    }
  });
});
