import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { sql as raw, eq } from 'drizzle-orm';
import postgres from 'postgres';
import { datasources, filters, results } from '@cairn/db';
import { call, db, jsonApi, makeKey, makeOrg, makeRawKey } from '../../../test/fixtures.ts';
import { appCall, eventually, makeDatasource, PG_ATTRS, roomForDatasources } from '../../../test/engine-fixtures.ts';
import { optionSets } from './options.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let dashboard: string;
let sample: string;
/** The sample database (D32), read directly for the expected values. */
let shop: postgres.Sql | null = null;
const shopSql = () => (shop ??= postgres(env.SAMPLE_DB.connectionString, { max: 1, fetch_types: false, onnotice: () => {} }));

async function makeFilter(attributes: Record<string, unknown>, relationships: Record<string, unknown> = {}) {
  const res = await jsonApi(
    '/filters',
    'POST',
    {
      type: 'filters',
      attributes: { variable_name: `v_${crypto.randomUUID().slice(0, 8).replace(/-/g, '')}`, value_type: 'TEXT', ...attributes },
      relationships: { dashboards: { data: [{ type: 'dashboards', id: dashboard }] }, ...relationships },
    },
    key,
  );
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { id: res.json.data.id as string, variable: res.json.data.attributes.variable_name as string };
}
const sampleDs = () => ({ datasource: { data: { type: 'datasources', id: sample } } });
const options = (id: string, body: unknown, k = key) => appCall(`/filters/${id}/options`, { key: k, method: 'POST', body });
/** A parameter set of its own (a fresh status object) that the filters' SQL does not use. */
const freshParams = (extra: Record<string, unknown> = {}) => ({ timerange: `${1_600_000_000 + Math.floor(Math.random() * 1e8)}~`, ...extra });

beforeAll(async () => {
  org = await makeOrg('filter-options');
  key = await makeKey(org.organization.id);
  await roomForDatasources(org.organization.id);
  sample = org.sampleDatasource.id;
  dashboard = (await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Options' } }, key)).json.data.id;
});

describe('POST /filters/{id}/options', () => {
  it('manual dropdowns: the stored values and names (the value where a name is missing)', async () => {
    const f = await makeFilter({ control_type: 'dropdown_multi_manual', values: ['a', 'b', 'c'], value_names: ['Alpha', 'Beta', 'Gamma'] });
    const res = await options(f.id, {});
    expect(res.status).toBe(200);
    expect(res.json.options).toEqual([{ values: ['a', 'b', 'c'], value_names: ['Alpha', 'Beta', 'Gamma'], parent_values: [] }]);
    expect(Date.parse(res.json.data_timestamp)).not.toBeNaN();
    const numbers = await makeFilter({ control_type: 'dropdown_manual', value_type: 'NUMBER', values: [1, 2.5] });
    expect((await options(numbers.id, { dashboard_id: dashboard })).json.options).toEqual([{ values: [1, 2.5], value_names: ['1', '2.5'], parent_values: [] }]);
  });

  it('SQL dropdowns: first column values, second labels, from a run shared with the dashboard', async () => {
    const f = await makeFilter({ control_type: 'dropdown_multi', sql_query: 'select code, name from countries order by code' }, sampleDs());
    const res = await options(f.id, { dashboard_id: dashboard });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const expected = await shopSql()<{ code: string; name: string }[]>`select code, name from countries order by code`;
    expect(res.json.options).toEqual([{ values: expected.map((r) => r.code), value_names: expected.map((r) => r.name), parent_values: [] }]);
    const [row] = await db().select().from(filters).where(eq(filters.id, f.id));
    expect(row!.last_query_success).toBeInstanceOf(Date);
    // The dashboard's status poll shows the same run.
    const status = await call(`/dashboards/${dashboard}/status`, { key, method: 'POST', body: {} });
    const entry = status.json.filters.find((e: any) => e.filter_id === f.id);
    expect(entry).toMatchObject({ result_status: 'success' });
    expect(res.json.data_timestamp).toBe(entry.data_timestamp);
  });

  it("a child follows its parent's selection (parent values are bound parameters)", async () => {
    const parent = await makeFilter({ control_type: 'dropdown_multi', sql_query: 'select code from countries order by 1' }, sampleDs());
    const child = await makeFilter(
      {
        control_type: 'dropdown_multi_dynamic',
        sql_query: `select distinct city, upper(city) from customers where {country=${parent.variable}} order by 1`,
      },
      { ...sampleDs(), parent_filter: { data: { type: 'filters', id: parent.id } } },
    );
    const cities = async (country: string[]) =>
      (await shopSql()<{ city: string }[]>`select distinct city from customers where country = any(${`{${country.join(',')}}`}::text[]) order by 1`).map(
        (r) => r.city,
      );
    const de = await options(child.id, { dashboard_id: dashboard, parameters: { filters: [{ variable_name: parent.variable, selected_values: ['DE'] }] } });
    expect(de.status, JSON.stringify(de.json)).toBe(200);
    expect(de.json.options[0].values).toEqual(await cities(['DE']));
    expect(de.json.options[0].value_names).toEqual((await cities(['DE'])).map((c) => c.toUpperCase()));
    const two = await options(child.id, {
      dashboard_id: dashboard,
      parameters: { filters: [{ variable_name: parent.variable, selected_values: ['FR', 'NL'] }] },
    });
    expect(two.json.options[0].values).toEqual(await cities(['FR', 'NL']));
    // An injection attempt through the parent is just a value.
    const evil = await options(child.id, {
      dashboard_id: dashboard,
      parameters: { filters: [{ variable_name: parent.variable, selected_values: ["DE' or '1'='1"] }] },
    });
    expect(evil.json.options).toEqual([]);
    // No selection: the parent's condition is TRUE and every city is offered.
    const all = await options(child.id, { dashboard_id: dashboard });
    expect(all.json.options[0].values.length).toBeGreaterThan(de.json.options[0].values.length);
  });

  it('a third column groups the options by parent value', async () => {
    const f = await makeFilter(
      {
        control_type: 'dropdown_multi_dynamic',
        sql_query: "select city, city, country from customers where country in ('DE', 'FR') group by 1, 3 order by 3, 1",
      },
      sampleDs(),
    );
    const res = await options(f.id, { dashboard_id: dashboard });
    expect(res.status).toBe(200);
    expect(res.json.options.map((o: any) => o.parent_values)).toEqual([['DE'], ['FR']]);
    for (const set of res.json.options) expect(set.values.length).toBe(set.value_names.length);
  });

  it('grouping and de-duplication (pure)', () => {
    expect(
      optionSets([
        [1, 'one', 'p'],
        [2, null, 'p'],
        [1, 'again', 'p'],
        [3, 'three', 'q'],
        [null, 'skipped', 'q'],
      ]),
    ).toEqual([
      { values: [1, 2], value_names: ['one', '2'], parent_values: ['p'] },
      { values: [3], value_names: ['three'], parent_values: ['q'] },
    ]);
    expect(optionSets([['x'], ['y']])).toEqual([{ values: ['x', 'y'], value_names: ['x', 'y'], parent_values: [] }]);
  });

  it('unavailable (422 invalid_state) when the query has not run successfully within 24 hours', async () => {
    const broken = await makeFilter({ control_type: 'dropdown', sql_query: 'select 1 / (select count(*) - count(*) from countries)' }, sampleDs());
    const res = await options(broken.id, { dashboard_id: dashboard });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].code).toBe('invalid_state');
    expect(res.json.errors[0].detail).toMatch(/24 hours.*division by zero/s);
    const [row] = await db().select().from(filters).where(eq(filters.id, broken.id));
    expect(row!.last_query_error_message).toMatch(/division by zero/);
  });

  it('an older result within 24 hours is still served when a re-run fails; past 24 hours it is not', async () => {
    const ds = await makeDatasource(key, PG_ATTRS);
    const f = await makeFilter(
      { control_type: 'dropdown', sql_query: "select 'x' as v", data_refresh_rate: 60 },
      { datasource: { data: { type: 'datasources', id: ds } } },
    );
    const first = await options(f.id, { dashboard_id: dashboard, parameters: freshParams() });
    expect(first.json.options).toEqual([{ values: ['x'], value_names: ['x'], parent_values: [] }]);
    // The database goes away; the stored result is older than the refresh rate but within a day.
    await db().update(datasources).set({ port: 1 }).where(eq(datasources.id, ds));
    await db()
      .update(results)
      .set({ data_timestamp: new Date(Date.now() - 2 * 3_600_000) })
      .where(raw`${results.execution_id} in (select id from executions where filter_id = ${f.id})`);
    const stale = await options(f.id, { dashboard_id: dashboard, parameters: freshParams() });
    expect(stale.status, JSON.stringify(stale.json)).toBe(200);
    expect(Date.now() - Date.parse(stale.json.data_timestamp)).toBeGreaterThan(3_600_000);
    // Past 24 hours: unavailable, with the last run's error.
    await db()
      .update(results)
      .set({ data_timestamp: new Date(Date.now() - 25 * 3_600_000) })
      .where(raw`${results.execution_id} in (select id from executions where filter_id = ${f.id})`);
    const gone = await options(f.id, { dashboard_id: dashboard, parameters: freshParams() });
    expect(gone.status).toBe(422);
    expect(gone.json.errors[0].detail).toMatch(/24 hours.*127\.0\.0\.1:1/s);
  });

  it('bad requests: no dashboard_id for SQL options, a filter not on the dashboard, controls without options', async () => {
    const sqlFilter = await makeFilter({ control_type: 'dropdown', sql_query: 'select 1' }, sampleDs());
    const missing = await options(sqlFilter.id, {});
    expect(missing.status).toBe(422);
    expect(missing.json.errors[0]).toMatchObject({ code: 'missing_attribute', source: { pointer: '/dashboard_id' } });
    const otherBoard = (await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Other' } }, key)).json.data.id;
    const notOn = await options(sqlFilter.id, { dashboard_id: otherBoard });
    expect(notOn.status).toBe(422);
    expect(notOn.json.errors[0].source).toEqual({ pointer: '/dashboard_id' });
    expect((await options(sqlFilter.id, { dashboard_id: 'dsh_nope' })).json.errors[0]).toMatchObject({
      code: 'invalid_attribute',
      source: { pointer: '/dashboard_id' },
    });
    const input = await makeFilter({ control_type: 'input' });
    expect((await options(input.id, {})).json.errors[0].code).toBe('invalid_state');
    expect((await options(sqlFilter.id, { dashboard_id: dashboard, extra: 1 })).status).toBe(422);
    expect((await options(sqlFilter.id, { dashboard_id: dashboard, parameters: { aggregation: 'fortnight' } })).json.errors[0].source.pointer).toBe(
      '/parameters/aggregation',
    );
    expect((await appCall(`/filters/${sqlFilter.id}/options`, { key, method: 'POST', rawBody: 'x', contentType: 'text/plain' })).status).toBe(415);
  });

  it('access: another organization gets 404; a key restricted to another dashboard cannot use this one', async () => {
    const manual = await makeFilter({ control_type: 'dropdown_manual', values: ['a'] });
    const other = await makeOrg('filter-options-other');
    expect((await options(manual.id, {}, await makeKey(other.organization.id))).status).toBe(404);
    const sqlFilter = await makeFilter({ control_type: 'dropdown', sql_query: 'select 1' }, sampleDs());
    const restricted = await makeRawKey(org.organization.id, [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: 'dsh_other' }] }]);
    expect((await options(sqlFilter.id, { dashboard_id: dashboard }, restricted)).status).toBe(404);
  });
});

describe('POST /filters/{id}/refresh', () => {
  it('204 for a manual dropdown; an execution id for a SQL dropdown, which then succeeds', async () => {
    const manual = await makeFilter({ control_type: 'dropdown_manual', values: ['a'] });
    expect((await appCall(`/filters/${manual.id}/refresh`, { key, method: 'POST' })).status).toBe(204);
    const f = await makeFilter({ control_type: 'dropdown', sql_query: 'select code from countries' }, sampleDs());
    const res = await appCall(`/filters/${f.id}/refresh`, { key, method: 'POST', body: { dashboard_id: dashboard } });
    expect(res.status).toBe(200);
    expect(res.json.execution_id).toMatch(/^exe_/);
    const done = await eventually(async () => {
      const r = await call(`/executions/${res.json.execution_id}`, { key });
      return r.json.execution_status === 'success' && r.json;
    });
    expect(done.execution_type).toBe('sql_filter');
    // Without dashboard_id the first dashboard showing the filter is used.
    const again = await appCall(`/filters/${f.id}/refresh`, { key, method: 'POST' });
    expect(again.json.execution_id).not.toBe(res.json.execution_id);
  });

  it('a filter on no dashboard runs on its own (Manage Dashboards)', async () => {
    const res = await jsonApi(
      '/filters',
      'POST',
      {
        type: 'filters',
        attributes: {
          variable_name: `lone_${crypto.randomUUID().slice(0, 6).replace(/-/g, '')}`,
          value_type: 'TEXT',
          control_type: 'dropdown',
          sql_query: 'select 1',
        },
        relationships: sampleDs(),
      },
      key,
    );
    const id = res.json.data.id;
    const run = await appCall(`/filters/${id}/refresh`, { key, method: 'POST' });
    expect(run.status).toBe(200);
    await eventually(async () => (await db().select().from(filters).where(eq(filters.id, id)))[0]?.last_query_success);
  });
});
