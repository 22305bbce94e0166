import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { dashboards, executions, reports } from '@cairn/db';
import { call, db, jsonApi, makeKey, makeOrg, makeRawKey, only } from '../../../test/fixtures.ts';
import { appCall } from '../../../test/engine-fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

/**
 * The filter rules of data calls: required filters, dropdown_validate and the all_time aggregation,
 * on POST /dashboards/{id}/status, /refresh, /data and /reports/{id}/data, /refresh; and a report's
 * refresh_enabled switch.
 */
let org: CreateOrganizationResult;
let key: string;
let sample: string;

beforeAll(async () => {
  org = await makeOrg('filter-rules');
  key = await makeKey(org.organization.id);
  sample = org.sampleDatasource.id;
});

const uniq = () => crypto.randomUUID().slice(0, 8).replace(/-/g, '');

/** A dashboard with one report that uses `variable`, and the filter (created through the API) on it. */
async function setup(filter: Record<string, unknown>, opts: { sql?: (v: string) => string; report?: Record<string, unknown>; ds?: boolean } = {}) {
  const dash = await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: `Rules ${uniq()}` } }, key);
  expect(dash.status).toBe(201);
  const dashboard = dash.json.data.id as string;
  const variable = `v_${uniq()}`;
  const f = await jsonApi(
    '/filters',
    'POST',
    {
      type: 'filters',
      attributes: { variable_name: variable, display_name: 'Shop country', value_type: 'TEXT', ...filter },
      relationships: {
        dashboards: { data: [{ type: 'dashboards', id: dashboard }] },
        ...(opts.ds ? { datasource: { data: { type: 'datasources', id: sample } } } : {}),
      },
    },
    key,
  );
  expect(f.status, JSON.stringify(f.json)).toBe(201);
  const sql = opts.sql?.(variable) ?? `select count(*) as n from orders o where {[o.country]=${variable}}`;
  const r = await jsonApi(
    '/reports',
    'POST',
    {
      type: 'reports',
      attributes: { name: 'Orders', sql_query: sql, ...opts.report },
      relationships: { dashboard: { data: { type: 'dashboards', id: dashboard } }, datasource: { data: { type: 'datasources', id: sample } } },
    },
    key,
  );
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return { dashboard, report: r.json.data.id as string, filter: f.json.data.id as string, variable };
}

const post = (path: string, body: unknown = {}, k = key) => appCall(path, { key: k, method: 'POST', body });
const params = (variable: string, ...values: unknown[]) => ({ parameters: { filters: [{ variable_name: variable, selected_values: values }] } });
/** Every data call of a dashboard and its report. */
const calls = (s: { dashboard: string; report: string }) => [
  `/dashboards/${s.dashboard}/refresh`,
  `/dashboards/${s.dashboard}/data`,
  `/reports/${s.report}/data`,
  `/reports/${s.report}/refresh`,
];

describe('required filters', () => {
  it('a required filter without a value or default is a 422 naming it, on every data call', async () => {
    const s = await setup({ control_type: 'dropdown_multi_manual', values: ['DE', 'FR'], required: true });
    for (const path of calls(s)) {
      const none = await post(path);
      expect(none.status, path).toBe(422);
      expect(none.json.errors[0]).toMatchObject({
        code: 'missing_attribute',
        source: { pointer: '/parameters/filters' },
        meta: { variable_name: s.variable },
      });
      expect(none.json.errors[0].detail).toContain('Shop country');
      // Sent but empty (or blank): the pointer names its selected_values.
      const empty = await post(path, {
        parameters: {
          filters: [
            { variable_name: 'aggregation', selected_values: ['day'] },
            { variable_name: s.variable, selected_values: ['', null] },
          ],
        },
      });
      expect(empty.status, path).toBe(422);
      expect(empty.json.errors[0].source.pointer).toBe('/parameters/filters/1/selected_values');
    }
    // With a value every call goes through.
    for (const path of calls(s)) {
      const ok = await post(path, params(s.variable, 'DE'));
      expect(ok.status, `${path} ${JSON.stringify(ok.json)}`).toBeLessThan(300);
    }
  });

  it('the status poll answers, with the reports waiting for the filter (its options still load)', async () => {
    const s = await setup({ control_type: 'dropdown_multi', sql_query: 'select code, name from countries order by code', required: true }, { ds: true });
    const waiting = await post(`/dashboards/${s.dashboard}/status`, {});
    expect(waiting.status).toBe(200);
    expect(waiting.json.reports).toHaveLength(1);
    expect(waiting.json.reports[0]).toMatchObject({
      report_id: s.report,
      result_status: 'error',
      data_key: null,
      data_access_token: null,
      error: { code: 'required_filter_missing' },
    });
    expect(waiting.json.reports[0].error.message).toContain('Shop country');
    expect(waiting.json.filters.map((f: { filter_id: string }) => f.filter_id)).toEqual([s.filter]);
    expect(waiting.json.data_keys.some((k: { report_id?: string }) => k.report_id)).toBe(false);

    const chosen = await post(`/dashboards/${s.dashboard}/status`, params(s.variable, 'DE'));
    expect(chosen.status).toBe(200);
    expect(chosen.json.reports[0].error?.code).not.toBe('required_filter_missing');
    expect(['running', 'success', 'no_data']).toContain(chosen.json.reports[0].result_status);
  });

  it("a default value, the dashboard's default parameters or dropdown_default_to_first satisfy it", async () => {
    const withDefault = await setup({ control_type: 'dropdown_multi_manual', values: ['DE', 'FR'], default_values: ['FR'], required: true });
    expect((await post(`/reports/${withDefault.report}/data`)).status).toBeLessThan(300);

    const first = await setup({ control_type: 'dropdown_manual', values: ['DE', 'FR'], dropdown_default_to_first: true, required: true });
    expect((await post(`/dashboards/${first.dashboard}/refresh`)).status).toBe(204);

    const byDashboard = await setup({ control_type: 'input', required: true });
    expect((await post(`/reports/${byDashboard.report}/data`)).status).toBe(422);
    await db()
      .update(dashboards)
      .set({ default_parameters: { filters: [{ variable_name: byDashboard.variable, selected_values: ['DE'] }] } })
      .where(eq(dashboards.id, byDashboard.dashboard));
    expect((await post(`/reports/${byDashboard.report}/data`)).status).toBeLessThan(300);
  });

  it('an optional filter needs no value', async () => {
    const s = await setup({ control_type: 'dropdown_multi_manual', values: ['DE', 'FR'] });
    for (const path of calls(s)) expect((await post(path)).status, path).toBeLessThan(300);
  });
});

describe('dropdown_validate', () => {
  it('a manual dropdown takes only its values; each stray value is named', async () => {
    const s = await setup({ control_type: 'dropdown_multi_manual', values: ['DE', 'FR'], dropdown_validate: true });
    for (const path of [...calls(s), `/dashboards/${s.dashboard}/status`]) {
      const bad = await post(path, params(s.variable, 'DE', 'XX', 'YY'));
      expect(bad.status, path).toBe(422);
      expect(bad.json.errors).toHaveLength(2);
      expect(bad.json.errors[0]).toMatchObject({ code: 'invalid_attribute', source: { pointer: '/parameters/filters/0/selected_values/1' } });
      expect(bad.json.errors[1].source.pointer).toBe('/parameters/filters/0/selected_values/2');
      expect(bad.json.errors[0].detail).toContain('"XX"');
    }
    expect((await post(`/reports/${s.report}/data`, params(s.variable, 'FR'))).status).toBeLessThan(300);
  });

  it('numbers compare as numbers', async () => {
    const s = await setup(
      { control_type: 'dropdown_manual', value_type: 'NUMBER', values: [1, 2.5], dropdown_validate: true },
      {
        sql: (v) => `select {${v}.value} as picked`,
      },
    );
    expect((await post(`/reports/${s.report}/data`, params(s.variable, '2.5'))).status).toBeLessThan(300);
    expect((await post(`/reports/${s.report}/data`, params(s.variable, 3))).status).toBe(422);
  });

  it('without dropdown_validate any value of the right type is taken', async () => {
    const s = await setup({ control_type: 'dropdown_multi_manual', values: ['DE', 'FR'] });
    expect((await post(`/reports/${s.report}/data`, params(s.variable, 'XX'))).status).toBeLessThan(300);
  });

  it('a query dropdown takes only the options its query lists', async () => {
    const s = await setup(
      { control_type: 'dropdown_multi', sql_query: 'select code, name from countries order by code', dropdown_validate: true },
      { ds: true },
    );
    const bad = await post(`/reports/${s.report}/data`, params(s.variable, 'DE', 'ZZ'));
    expect(bad.status, JSON.stringify(bad.json)).toBe(422);
    expect(bad.json.errors).toHaveLength(1);
    expect(bad.json.errors[0].source.pointer).toBe('/parameters/filters/0/selected_values/1');
    expect((await post(`/reports/${s.report}/data`, params(s.variable, 'DE'))).status).toBeLessThan(300);
  });
});

describe('all_time aggregation', () => {
  const sql = (v: string) => `select {[o.ordered_at]:${v}} as at, count(*) as n from orders o group by 1`;

  it('is refused unless the filter lists it, on every data call', async () => {
    const s = await setup({ control_type: 'date_time_aggregation', value_type: 'TEXT', allowed_aggregations: ['day', 'month'] }, { sql });
    for (const path of [...calls(s), `/dashboards/${s.dashboard}/status`]) {
      const bad = await post(path, params(s.variable, 'all_time'));
      expect(bad.status, path).toBe(422);
      expect(bad.json.errors[0]).toMatchObject({ code: 'invalid_attribute', source: { pointer: '/parameters/filters/0/selected_values/0' } });
    }
    const month = await post(`/reports/${s.report}/data`, params(s.variable, 'month'));
    expect(month.status, JSON.stringify(month.json)).toBeLessThan(300);
  });

  it('is taken when listed', async () => {
    const s = await setup({ control_type: 'date_time_aggregation', value_type: 'TEXT', allowed_aggregations: ['day', 'all_time'] }, { sql });
    expect((await post(`/reports/${s.report}/data`, params(s.variable, 'all_time'))).status).toBeLessThan(300);
  });
});

describe('an unset aggregation filter', () => {
  // Month buckets of the sample shop's orders are far fewer than day buckets.
  const sql = (v: string) => `select {[o.ordered_at]:${v}} as at, count(*) as n from orders o group by 1`;
  /** Rows of the result a data call answered with (the same compiled SQL may reuse another report's run). */
  const rowsOf = async (res: { status: number; json: { execution_id?: string } }) => {
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const [e] = await db().select().from(executions).where(eq(executions.id, res.json.execution_id!));
    expect(e?.execution_status).toBe('success');
    return e!.result_rows!;
  };

  it("buckets by the filter's default value on the report data call, as the status poll does", async () => {
    const s = await setup(
      { control_type: 'date_time_aggregation', value_type: 'TEXT', allowed_aggregations: ['day', 'month'], default_values: ['month'] },
      { sql },
    );
    const byDefault = await rowsOf(await post(`/reports/${s.report}/data`));
    const byDay = await rowsOf(await post(`/reports/${s.report}/data`, params(s.variable, 'day')));
    expect(byDefault).toBeGreaterThan(1);
    expect(byDay).toBeGreaterThan(byDefault * 10);
  });
});

describe('refresh_enabled', () => {
  it("off: the report's own refresh is a 422 invalid_state; the dashboard's refresh still runs it", async () => {
    const s = await setup({ control_type: 'dropdown_multi_manual', values: ['DE', 'FR'] }, { report: { refresh_enabled: false } });
    const res = await post(`/reports/${s.report}/refresh`);
    expect(res.status).toBe(422);
    expect(res.json.errors[0].code).toBe('invalid_state');
    expect(res.json.errors[0].detail).toContain('refresh_enabled');
    expect((await post(`/dashboards/${s.dashboard}/refresh`)).status).toBe(204);
    await db().update(reports).set({ refresh_enabled: true }).where(eq(reports.id, s.report));
    const on = await post(`/reports/${s.report}/refresh`);
    expect(on.status).toBe(200);
  });
});

describe('permissions come before the rules', () => {
  it('no key, a key without View Dashboards, a key for another dashboard and another organization', async () => {
    const s = await setup({ control_type: 'dropdown_multi_manual', values: ['DE'], required: true }, { report: { refresh_enabled: false } });
    const paths = [...calls(s), `/dashboards/${s.dashboard}/status`];
    const noView = await makeKey(org.organization.id, only('view_users'));
    const elsewhere = await makeRawKey(org.organization.id, [
      { permission: 'view_dashboards', resources: [{ type: 'dashboards', id: org.sampleDashboard.id }] },
    ]);
    const other = await makeOrg('filter-rules-other');
    const otherKey = await makeKey(other.organization.id);
    for (const path of paths) {
      expect((await call(path, { method: 'POST', body: {} })).status, path).toBe(401);
      expect((await post(path, {}, noView)).status, path).toBe(403);
      // A key restricted to other dashboards: refused (403, or 404 where the call hides the dashboard).
      expect([403, 404], path).toContain((await post(path, {}, elsewhere)).status);
      expect((await post(path, {}, otherKey)).status, path).toBe(404);
    }
  });
});
