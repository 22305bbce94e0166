import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, dashboardFilters, dashboards, datasources, filters, sqlSnippets } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let orgId: string;

const rel = (type: string, id: string | null) => ({ data: id ? { type, id } : null });
const many = (type: string, ids: string[]) => ({ data: ids.map((id) => ({ type, id })) });
const filter = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  type: 'filters',
  attributes,
  ...(relationships ? { relationships } : {}),
});
let n = 0;
const variable = () => `v_${++n}_${Math.random().toString(36).slice(2, 6)}`;

async function create(attributes: Record<string, unknown>, relationships?: Record<string, unknown>, as: string | { session: string } = key) {
  const res = await jsonApi('/filters', 'POST', filter({ variable_name: variable(), ...attributes }, relationships), as);
  expectJsonApiDocument(res.json);
  return res;
}
const patch = (id: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>, as: string | { session: string } = key) =>
  jsonApi(`/filters/${id}`, 'PATCH', { ...filter(attributes, relationships), id }, as);
const errorsOf = (res: { json: any }) => res.json.errors.map((e: any) => [e.code, e.source?.pointer ?? e.source?.parameter]);
const stored = async (id: string) => (await db().select().from(filters).where(eq(filters.id, id)))[0]!;

async function makeDashboard(over: Partial<typeof dashboards.$inferInsert> = {}) {
  const id = newId('dashboard');
  await db()
    .insert(dashboards)
    .values({ id, organization_id: orgId, name: `Board ${id.slice(-4)}`, share_mode: 'all_users', ...over });
  return id;
}

beforeAll(async () => {
  org = await makeOrg('filters');
  orgId = org.organization.id;
  key = await makeKey(orgId);
});

describe('filters: create, read, update, delete', () => {
  it('creates with defaults, hides values, reads, updates, deletes, with audit entries', async () => {
    const made = await create({
      display_name: 'Status',
      variable_name: 'order_status',
      control_type: 'dropdown_multi_manual',
      value_type: 'TEXT',
      values: ['pending', 'shipped'],
      value_names: ['Pending', 'Shipped'],
    });
    expect(made.status).toBe(201);
    const id = made.json.data.id;
    expect(made.json.data).toMatchObject({
      type: 'filters',
      attributes: {
        display_name: 'Status',
        variable_name: 'order_status',
        control_type: 'dropdown_multi_manual',
        value_type: 'TEXT',
        sql_query: null,
        data_refresh_rate: null,
        default_values: null,
        required: false,
        dropdown_validate: false,
        dropdown_default_to_first: false,
        allowed_aggregations: null,
        last_query_success: null,
        last_query_error_message: null,
      },
      relationships: { datasource: { data: null }, sql_snippets: { data: [] }, parent_filter: { data: null }, dashboards: { data: [] } },
    });
    // Write-only: never in the API key's view; range switches only on range controls.
    expect(made.json.data.attributes).not.toHaveProperty('values');
    expect(made.json.data.attributes).not.toHaveProperty('value_names');
    expect(made.json.data).not.toHaveProperty('meta');
    expect(made.json.data.attributes).not.toHaveProperty('relative_range_enabled');
    expect((await stored(id)).values).toEqual(['pending', 'shipped']);

    const got = await call(`/filters/${id}`, { key });
    expect(got.status).toBe(200);
    expectJsonApiDocument(got.json);
    const patched = await patch(id, { display_name: 'Order status', required: true });
    expect(patched.status).toBe(200);
    expect(patched.json.data.attributes).toMatchObject({ display_name: 'Order status', required: true, variable_name: 'order_status' });
    expect((await call(`/filters/${id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/filters/${id}`, { key })).status).toBe(404);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, orgId), eq(auditLog.resource_id, id)));
    expect(log.map((l) => l.action).sort()).toEqual(['create', 'delete', 'update']);
  });

  it('shows range switches (default true) on range controls and accepts them there', async () => {
    const res = await create({ control_type: 'date_range', value_type: 'DATE', before_range_enabled: false, default_values: ['2025-01-01~2025-01-31'] });
    expect(res.status).toBe(201);
    expect(res.json.data.attributes).toMatchObject({
      relative_range_enabled: true,
      before_range_enabled: false,
      after_range_enabled: true,
      from_to_range_enabled: true,
      default_values: ['2025-01-01~2025-01-31'],
    });
  });

  it('lists with pagination and includes', async () => {
    const res = await call('/filters?page[size]=1&include=datasource,dashboards', { key });
    expect(res.status).toBe(200);
    expectJsonApiDocument(res.json);
    expect(res.json.data).toHaveLength(1);
    expect(res.json.meta.total).toBeGreaterThanOrEqual(2);
    // The sample filters sit on both the sample dashboard and the chart gallery.
    expect([...new Set(res.json.included.map((r: any) => r.type))].sort()).toEqual(['dashboards', 'datasources']);
    expect((await call('/filters?include=reports', { key })).status).toBe(400);
  });
});

describe('filters: control and value types', () => {
  const ok: [string, string][] = [
    ['input', 'TEXT'],
    ['input', 'NUMBER'],
    ['input', 'DATE_TIME'],
    ['input_multi', 'NUMBER'],
    ['checkbox', 'BOOLEAN'],
    ['checkbox_two_way', 'BOOLEAN'],
    ['date_time', 'DATE_TIME'],
    ['date_time_range', 'DATE_TIME'],
    ['date', 'DATE'],
    ['date_range', 'DATE'],
    ['time', 'TIME'],
    ['time_range', 'TIME'],
    ['date_time_aggregation', 'TEXT'],
    ['dropdown', 'BOOLEAN'],
    ['dropdown_multi', 'DATE'],
    ['dropdown_manual', 'NUMBER'],
    ['dropdown_multi_manual', 'TIME'],
  ];
  it.each(ok)('accepts %s with %s', async (control_type, value_type) => {
    expect((await create({ control_type, value_type })).status).toBe(201);
  });

  const bad: [string, string][] = [
    ['input', 'BOOLEAN'],
    ['checkbox', 'TEXT'],
    ['checkbox_two_way', 'NUMBER'],
    ['date', 'DATE_TIME'],
    ['date_range', 'TEXT'],
    ['date_time_range', 'DATE'],
    ['time_range', 'DATE'],
    ['time', 'TEXT'],
    ['date_time', 'DATE'],
    ['date_time_aggregation', 'NUMBER'],
  ];
  it.each(bad)('refuses %s with %s, pointing at value_type', async (control_type, value_type) => {
    const res = await create({ control_type, value_type });
    expect(res.status).toBe(422);
    expect(errorsOf(res)).toContainEqual(['invalid_attribute', '/data/attributes/value_type']);
  });

  it('requires variable_name, control_type and value_type, and checks the variable_name characters', async () => {
    const res = await jsonApi('/filters', 'POST', filter({}), key);
    expect(res.status).toBe(422);
    expect(errorsOf(res)).toEqual(
      expect.arrayContaining([
        ['missing_attribute', '/data/attributes/variable_name'],
        ['missing_attribute', '/data/attributes/control_type'],
        ['missing_attribute', '/data/attributes/value_type'],
      ]),
    );
    for (const name of ['with space', 'dollar$', 'dot.ted', 'ümlaut', '', '-leading_hyphen']) {
      const r = await create({ variable_name: name, control_type: 'input', value_type: 'TEXT' });
      expect(r.status, name).toBe(422);
      expect(errorsOf(r)).toContainEqual(['invalid_attribute', '/data/attributes/variable_name']);
    }
    expect((await create({ variable_name: 'Ok_name-2', control_type: 'input', value_type: 'TEXT' })).status).toBe(201);
    const unknown = await create({ control_type: 'slider', value_type: 'TEXT' });
    expect(errorsOf(unknown)).toContainEqual(['invalid_attribute', '/data/attributes/control_type']);
    const ro = await create({ control_type: 'input', value_type: 'TEXT', last_query_success: '2024-01-01T00:00:00Z', last_query_error_message: 'x' });
    expect(errorsOf(ro)).toEqual(
      expect.arrayContaining([
        ['read_only_attribute', '/data/attributes/last_query_success'],
        ['read_only_attribute', '/data/attributes/last_query_error_message'],
      ]),
    );
  });
});

describe('filters: manual values', () => {
  it('takes values only for manual dropdowns', async () => {
    const res = await create({ control_type: 'dropdown_multi', value_type: 'TEXT', values: ['a'], value_names: ['A'] });
    expect(res.status).toBe(422);
    expect(errorsOf(res)).toEqual(
      expect.arrayContaining([
        ['invalid_attribute', '/data/attributes/values'],
        ['invalid_attribute', '/data/attributes/value_names'],
      ]),
    );
  });

  it('refuses the NUL character, pointing at the element', async () => {
    const v = await create({ control_type: 'dropdown_manual', value_type: 'TEXT', values: ['ok', 'b\u0000ad'] });
    expect(v.status).toBe(422);
    expect(errorsOf(v)).toContainEqual(['invalid_attribute', '/data/attributes/values/1']);
    const names = await create({ control_type: 'dropdown_manual', value_type: 'TEXT', values: ['a', 'b'], value_names: ['A', 'B\u0000'] });
    expect(errorsOf(names)).toContainEqual(['invalid_attribute', '/data/attributes/value_names/1']);
  });

  it('needs as many names as values, and values of the value type', async () => {
    const uneven = await create({ control_type: 'dropdown_manual', value_type: 'TEXT', values: ['a', 'b'], value_names: ['A'] });
    expect(errorsOf(uneven)).toContainEqual(['invalid_attribute', '/data/attributes/value_names']);
    const numbers = await create({ control_type: 'dropdown_multi_manual', value_type: 'NUMBER', values: [1, '2.5', 'three'] });
    expect(errorsOf(numbers)).toEqual([['invalid_attribute', '/data/attributes/values/2']]);
    const good = await create({ control_type: 'dropdown_multi_manual', value_type: 'NUMBER', values: [1, '2.5'] });
    expect((await stored(good.json.data.id)).values).toEqual([1, 2.5]);
    const dates = await create({ control_type: 'dropdown_manual', value_type: 'DATE', values: ['2025-02-30'] });
    expect(errorsOf(dates)).toEqual([['invalid_attribute', '/data/attributes/values/0']]);
    // Names can be updated alone as long as the counts still match.
    const id = good.json.data.id;
    expect((await patch(id, { value_names: ['one', 'two and a half'] })).status).toBe(200);
    expect((await patch(id, { value_names: ['one'] })).status).toBe(422);
  });

  it('shows manual options to signed-in users only (meta.options)', async () => {
    const made = await create({ control_type: 'dropdown_manual', value_type: 'TEXT', values: ['x', 'y'], value_names: ['X', 'Y'] });
    const user = await makeUser(orgId, 'viewer');
    const asUser = await call(`/filters/${made.json.data.id}`, { session: user.session });
    expect(asUser.json.data.meta).toEqual({ options: { values: ['x', 'y'], value_names: ['X', 'Y'] } });
    expect((await call(`/filters/${made.json.data.id}`, { key })).json.data.meta).toBeUndefined();
  });
});

describe('filters: queries, ranges, aggregations, defaults', () => {
  it('takes sql_query only for query dropdowns, requires it for dynamic ones, and then needs the datasource', async () => {
    const notQuery = await create({ control_type: 'input', value_type: 'TEXT', sql_query: 'SELECT 1' });
    expect(errorsOf(notQuery)).toContainEqual(['invalid_attribute', '/data/attributes/sql_query']);
    const manual = await create({ control_type: 'dropdown_manual', value_type: 'TEXT', sql_query: 'SELECT 1' });
    expect(errorsOf(manual)).toContainEqual(['invalid_attribute', '/data/attributes/sql_query']);
    const dynamic = await create({ control_type: 'dropdown_dynamic', value_type: 'TEXT' });
    expect(errorsOf(dynamic)).toContainEqual(['missing_attribute', '/data/attributes/sql_query']);
    const noSource = await create({ control_type: 'dropdown', value_type: 'TEXT', sql_query: 'SELECT code FROM countries' });
    expect(errorsOf(noSource)).toContainEqual(['invalid_relationship', '/data/relationships/datasource']);
    const ok = await create(
      { control_type: 'dropdown', value_type: 'TEXT', sql_query: 'SELECT code, name FROM countries' },
      { datasource: rel('datasources', org.sampleDatasource.id) },
    );
    expect(ok.status).toBe(201);
    expect(ok.json.data.relationships.datasource.data.id).toBe(org.sampleDatasource.id);
    // A plain dropdown without a query is fine (that is what ad hoc filters are).
    expect((await create({ control_type: 'dropdown_multi', value_type: 'TEXT' })).status).toBe(201);
  });

  it('checks access to the datasource of SQL-driven filters', async () => {
    const other = await makeOrg('filters-other');
    const foreign = await create(
      { control_type: 'dropdown', value_type: 'TEXT', sql_query: 'SELECT 1' },
      { datasource: rel('datasources', other.sampleDatasource.id) },
    );
    expect(errorsOf(foreign)).toContainEqual(['invalid_relationship', '/data/relationships/datasource/data/id']);
    const second = newId('datasource');
    await db().insert(datasources).values({ id: second, organization_id: orgId, name: 'Second', database_type: 'postgres', connection_mode: 'direct' });
    const restricted = await makeKey(orgId, [{ permission: 'manage_dashboards', resources: [{ type: 'datasources', id: second }] }]);
    const denied = await create(
      { control_type: 'dropdown', value_type: 'TEXT', sql_query: 'SELECT 1' },
      { datasource: rel('datasources', org.sampleDatasource.id) },
      restricted,
    );
    expect(denied.status).toBe(403);
  });

  it('records the snippets a filter query uses', async () => {
    const snip = newId('sql_snippet');
    await db().insert(sqlSnippets).values({ id: snip, organization_id: orgId, name: 'country_list', text: 'SELECT code FROM countries' });
    const res = await create(
      { control_type: 'dropdown', value_type: 'TEXT', sql_query: '[country_list] ORDER BY 1' },
      { datasource: rel('datasources', org.sampleDatasource.id) },
    );
    expect(res.json.data.relationships.sql_snippets.data).toEqual([{ type: 'sql_snippets', id: snip }]);
    const withInclude = await call(`/filters/${res.json.data.id}?include=sql_snippets`, { key });
    expect(withInclude.json.included.map((r: any) => r.id)).toEqual([snip]);
    const ro = await patch(res.json.data.id, {}, { sql_snippets: many('sql_snippets', [snip]) });
    expect(errorsOf(ro)).toContainEqual(['read_only_attribute', '/data/relationships/sql_snippets']);
  });

  it('takes the range switches only on range controls', async () => {
    for (const k of ['relative_range_enabled', 'before_range_enabled', 'after_range_enabled', 'from_to_range_enabled']) {
      const res = await create({ control_type: 'date', value_type: 'DATE', [k]: false });
      expect(res.status).toBe(422);
      expect(errorsOf(res)).toContainEqual(['invalid_attribute', `/data/attributes/${k}`]);
    }
    expect((await create({ control_type: 'time_range', value_type: 'TIME', after_range_enabled: false })).status).toBe(201);
  });

  it('checks allowed_aggregations and aggregation defaults (all_time only when listed)', async () => {
    const wrongControl = await create({ control_type: 'input', value_type: 'TEXT', allowed_aggregations: ['day'] });
    expect(errorsOf(wrongControl)).toContainEqual(['invalid_attribute', '/data/attributes/allowed_aggregations']);
    const unknown = await create({ control_type: 'date_time_aggregation', value_type: 'TEXT', allowed_aggregations: ['day', 'fortnight'] });
    expect(errorsOf(unknown)).toContainEqual(['invalid_attribute', '/data/attributes/allowed_aggregations/1']);
    const twice = await create({ control_type: 'date_time_aggregation', value_type: 'TEXT', allowed_aggregations: ['day', 'day'] });
    expect(errorsOf(twice)).toContainEqual(['invalid_attribute', '/data/attributes/allowed_aggregations/1']);
    const allTime = await create({ control_type: 'date_time_aggregation', value_type: 'TEXT', default_values: ['all_time'] });
    expect(errorsOf(allTime)).toContainEqual(['invalid_attribute', '/data/attributes/default_values/0']);
    const notAllowed = await create({
      control_type: 'date_time_aggregation',
      value_type: 'TEXT',
      allowed_aggregations: ['day', 'week'],
      default_values: ['month'],
    });
    expect(errorsOf(notAllowed)).toContainEqual(['invalid_attribute', '/data/attributes/default_values/0']);
    const ok = await create({
      control_type: 'date_time_aggregation',
      value_type: 'TEXT',
      allowed_aggregations: ['week', 'all_time'],
      default_values: ['all_time'],
    });
    expect(ok.status).toBe(201);
    expect(ok.json.data.attributes).toMatchObject({ allowed_aggregations: ['week', 'all_time'], default_values: ['all_time'] });
    expect((await create({ control_type: 'date_range', value_type: 'DATE', allowed_aggregations: ['day', 'month'] })).status).toBe(201);
  });

  it.each([
    ['input', 'NUMBER', ['12', 'x'], '/data/attributes/default_values'],
    ['input', 'NUMBER', ['abc'], '/data/attributes/default_values/0'],
    ['checkbox', 'BOOLEAN', [false], '/data/attributes/default_values/0'],
    ['checkbox_two_way', 'BOOLEAN', ['maybe'], '/data/attributes/default_values/0'],
    ['date', 'DATE', ['31.01.2025'], '/data/attributes/default_values/0'],
    ['time', 'TIME', ['25:00'], '/data/attributes/default_values/0'],
    ['date_time', 'DATE_TIME', ['yesterday'], '/data/attributes/default_values/0'],
    ['date_range', 'DATE', ['2025-01-31~2025-01-01'], '/data/attributes/default_values/0'],
    ['date_range', 'DATE', ['2025-01-01'], '/data/attributes/default_values/0'],
    ['date_range', 'DATE', ['2025-01-01~2025-01-31', '2025-02-01~'], '/data/attributes/default_values'],
    ['time_range', 'TIME', ['09:00~8am'], '/data/attributes/default_values/0'],
    ['date_time_range', 'DATE_TIME', ['2025-01-01T10:00:00Z~2025-01-01T09:00:00Z'], '/data/attributes/default_values/0'],
    ['input_multi', 'TEXT', ['ok', 'n\u0000ul'], '/data/attributes/default_values/1'],
    ['dropdown_manual', 'TEXT', [null], '/data/attributes/default_values/0'],
  ])('refuses %s/%s default_values %j', async (control_type, value_type, default_values, pointer) => {
    const res = await create({ control_type, value_type, default_values });
    expect(res.status).toBe(422);
    expect(errorsOf(res)).toContainEqual(['invalid_attribute', pointer]);
  });

  it.each([
    ['input_multi', 'NUMBER', ['1', 2], [1, 2]],
    ['checkbox', 'BOOLEAN', [true], [true]],
    ['checkbox_two_way', 'BOOLEAN', ['false'], [false]],
    ['time_range', 'TIME', ['09:00~17:30'], ['09:00~17:30']],
    ['date_time_range', 'DATE_TIME', ['1735689600~'], ['1735689600~']],
    ['date_time', 'DATE_TIME', ['2025-01-31T08:00:00Z'], ['2025-01-31T08:00:00Z']],
  ])('accepts %s/%s default_values %j', async (control_type, value_type, default_values, expected) => {
    const res = await create({ control_type, value_type, default_values });
    expect(res.status).toBe(201);
    expect(res.json.data.attributes.default_values).toEqual(expected);
  });

  it('with dropdown_validate, defaults must be among the manual values', async () => {
    const res = await create({ control_type: 'dropdown_manual', value_type: 'TEXT', values: ['a', 'b'], dropdown_validate: true, default_values: ['c'] });
    expect(errorsOf(res)).toContainEqual(['invalid_attribute', '/data/attributes/default_values/0']);
    expect(
      (await create({ control_type: 'dropdown_manual', value_type: 'TEXT', values: ['a', 'b'], dropdown_validate: true, default_values: ['b'] })).status,
    ).toBe(201);
  });

  it('on a control type change, clears what no longer applies and refuses what is sent and does not apply', async () => {
    const made = await create({ control_type: 'dropdown_manual', value_type: 'TEXT', values: ['a'], default_values: ['a'] });
    const id = made.json.data.id;
    const sent = await patch(id, { control_type: 'input', values: ['b'] });
    expect(errorsOf(sent)).toContainEqual(['invalid_attribute', '/data/attributes/values']);
    const changed = await patch(id, { control_type: 'input_multi' });
    expect(changed.status).toBe(200);
    expect(changed.json.data.attributes).toMatchObject({ control_type: 'input_multi', default_values: ['a'] });
    expect((await stored(id)).values).toBeNull();
    const toDate = await patch(id, { control_type: 'date', value_type: 'DATE' });
    expect(toDate.status).toBe(200);
    expect(toDate.json.data.attributes.default_values).toBeNull();
    const mismatch = await patch(id, { control_type: 'checkbox' });
    expect(errorsOf(mismatch)).toContainEqual(['invalid_attribute', '/data/attributes/control_type']);
  });
});

describe('filters: parent filter', () => {
  const dynamic = (parent?: string) =>
    create(
      { control_type: 'dropdown_multi_dynamic', value_type: 'TEXT', sql_query: 'SELECT DISTINCT city FROM customers WHERE {country=country}' },
      { datasource: rel('datasources', org.sampleDatasource.id), ...(parent ? { parent_filter: rel('filters', parent) } : {}) },
    );

  it('links a parent, refuses unknown, self, cycles and non-dynamic controls', async () => {
    const country = org.sampleDashboard.filters.find((f) => f.variable_name === 'country')!.id;
    const a = await dynamic(country);
    expect(a.status).toBe(201);
    expect(a.json.data.relationships.parent_filter.data).toEqual({ type: 'filters', id: country });
    const withParent = await call(`/filters/${a.json.data.id}?include=parent_filter`, { key });
    expect(withParent.json.included.map((r: any) => r.id)).toEqual([country]);
    const b = await dynamic(a.json.data.id);
    expect(b.status).toBe(201);
    // a → b → a would be a cycle.
    const cycle = await patch(a.json.data.id, {}, { parent_filter: rel('filters', b.json.data.id) });
    expect(cycle.status).toBe(422);
    expect(cycle.json.errors[0].detail).toContain('cycle');
    expect(errorsOf(cycle)).toContainEqual(['invalid_relationship', '/data/relationships/parent_filter/data/id']);
    const self = await patch(a.json.data.id, {}, { parent_filter: rel('filters', a.json.data.id) });
    expect(errorsOf(self)).toContainEqual(['invalid_relationship', '/data/relationships/parent_filter/data/id']);
    const unknown = await dynamic('flt_nope');
    expect(errorsOf(unknown)).toContainEqual(['invalid_relationship', '/data/relationships/parent_filter/data/id']);
    const other = await makeOrg('filters-parent');
    expect((await dynamic(other.sampleDashboard.filters[0]!.id)).status).toBe(422);
    const plain = await create({ control_type: 'input', value_type: 'TEXT' }, { parent_filter: rel('filters', country) });
    expect(errorsOf(plain)).toContainEqual(['invalid_relationship', '/data/relationships/parent_filter']);
    // Deleting the parent leaves the child without one.
    expect((await call(`/filters/${a.json.data.id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/filters/${b.json.data.id}`, { key })).json.data.relationships.parent_filter.data).toBeNull();
  });
});

describe('filters: dashboards', () => {
  it('puts a filter on dashboards (at the end of the bar), takes it off, one filter per variable per dashboard', async () => {
    const dash = await makeDashboard();
    const first = await create({ control_type: 'input', value_type: 'TEXT' }, { dashboards: many('dashboards', [dash]) });
    const second = await create({ control_type: 'input', value_type: 'NUMBER' }, { dashboards: many('dashboards', [dash, org.sampleDashboard.id]) });
    expect(second.status).toBe(201);
    expect(second.json.data.relationships.dashboards.data.map((d: any) => d.id).sort()).toEqual([dash, org.sampleDashboard.id].sort());
    const members = await db().select().from(dashboardFilters).where(eq(dashboardFilters.dashboard_id, dash));
    expect(members.sort((x, y) => x.position - y.position).map((m) => m.filter_id)).toEqual([first.json.data.id, second.json.data.id]);
    const onSample = await db()
      .select()
      .from(dashboardFilters)
      .where(and(eq(dashboardFilters.dashboard_id, org.sampleDashboard.id), eq(dashboardFilters.filter_id, second.json.data.id)));
    expect(onSample[0]!.position).toBe(2);
    const dashboard = await call(`/dashboards/${dash}?include=filters`, { key });
    expect(dashboard.json.data.relationships.filters.data.map((f: any) => f.id)).toEqual([first.json.data.id, second.json.data.id]);

    const clash = await create(
      { variable_name: first.json.data.attributes.variable_name, control_type: 'input', value_type: 'TEXT' },
      { dashboards: many('dashboards', [dash]) },
    );
    expect(clash.status).toBe(422);
    expect(errorsOf(clash)).toContainEqual(['invalid_relationship', '/data/relationships/dashboards']);
    const rename = await patch(second.json.data.id, { variable_name: first.json.data.attributes.variable_name });
    expect(errorsOf(rename)).toContainEqual(['invalid_relationship', '/data/attributes/variable_name']);

    const off = await patch(second.json.data.id, {}, { dashboards: many('dashboards', [org.sampleDashboard.id]) });
    expect(off.status).toBe(200);
    expect(off.json.data.relationships.dashboards.data).toEqual([{ type: 'dashboards', id: org.sampleDashboard.id }]);
    const unknown = await patch(second.json.data.id, {}, { dashboards: many('dashboards', [dash, 'dsh_nope']) });
    expect(errorsOf(unknown)).toContainEqual(['invalid_relationship', '/data/relationships/dashboards/data/1/id']);
  });

  it('refuses changes on locked dashboards', async () => {
    const dash = await makeDashboard({ is_locked: true });
    const res = await create({ control_type: 'input', value_type: 'TEXT' }, { dashboards: many('dashboards', [dash]) });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].code).toBe('invalid_state');
  });
});

describe('filters: permissions', () => {
  it('viewers read, analysts write, view-only keys cannot write', async () => {
    const id = org.sampleDashboard.filters[0]!.id;
    const viewer = await makeUser(orgId, 'viewer');
    expect((await call(`/filters/${id}`, { session: viewer.session })).status).toBe(200);
    expect((await create({ control_type: 'input', value_type: 'TEXT' }, undefined, { session: viewer.session })).status).toBe(403);
    const analyst = await makeUser(orgId, 'analyst');
    expect((await create({ control_type: 'input', value_type: 'TEXT' }, undefined, { session: analyst.session })).status).toBe(201);
    const viewKey = await makeKey(orgId, only('view_dashboards'));
    expect((await call(`/filters/${id}`, { key: viewKey })).status).toBe(200);
    expect((await patch(id, { required: true }, undefined, viewKey)).status).toBe(403);
    expect((await call(`/filters/${id}`, { key: viewKey, method: 'DELETE' })).status).toBe(403);
    expect((await call(`/filters/${id}?include=datasource`, { key: viewKey })).status).toBe(403);
    expect((await call(`/filters/${id}`, { key: await makeKey(orgId, only('view_alerts')) })).status).toBe(403);
  });

  it('hides filters that are only on dashboards the caller may not see', async () => {
    const priv = await makeDashboard({ share_mode: 'none', user_id: org.admin.id });
    const hidden = await create({ control_type: 'input', value_type: 'TEXT' }, { dashboards: many('dashboards', [priv]) });
    const free = await create({ control_type: 'input', value_type: 'TEXT' });
    const viewer = await makeUser(orgId, 'viewer');
    expect((await call(`/filters/${hidden.json.data.id}`, { session: viewer.session })).status).toBe(404);
    expect((await call(`/filters/${free.json.data.id}`, { session: viewer.session })).status).toBe(200);
    const restricted = await makeKey(orgId, [{ permission: 'manage_dashboards', resources: [{ type: 'dashboards', id: org.sampleDashboard.id }] }]);
    expect((await call(`/filters/${hidden.json.data.id}`, { key: restricted })).status).toBe(404);
    expect((await patch(hidden.json.data.id, { required: true }, undefined, restricted)).status).toBe(404);
    const list = await call('/filters?page[size]=200', { key: restricted });
    expect(list.json.data.map((f: any) => f.id)).not.toContain(hidden.json.data.id);
    expect(list.json.data.map((f: any) => f.id)).toContain(free.json.data.id);
  });

  it("answers 404 for another organization's filter", async () => {
    const other = await makeOrg('filters-intruder');
    const foreign = other.sampleDashboard.filters[0]!.id;
    for (const res of [
      await call(`/filters/${foreign}`, { key }),
      await patch(foreign, { required: true }),
      await call(`/filters/${foreign}`, { key, method: 'DELETE' }),
    ]) {
      expect(res.status).toBe(404);
      expectJsonApiDocument(res.json);
    }
  });

  it('concurrent updates of different attributes both survive', async () => {
    const id = (await create({ control_type: 'input', value_type: 'TEXT' })).json.data.id;
    await Promise.all([patch(id, { display_name: 'Shown' }), patch(id, { required: true }), patch(id, { data_refresh_rate: 60 })]);
    expect((await call(`/filters/${id}`, { key })).json.data.attributes).toMatchObject({ display_name: 'Shown', required: true, data_refresh_rate: 60 });
  });
});

describe('filters: OpenAPI', () => {
  it('documents every call with its permission and error answers', async () => {
    const doc = (await call('/openapi.json')).json;
    for (const [method, path, permission] of [
      ['get', '/filters', 'view_dashboards'],
      ['post', '/filters', 'manage_dashboards'],
      ['get', '/filters/{id}', 'view_dashboards'],
      ['patch', '/filters/{id}', 'manage_dashboards'],
      ['delete', '/filters/{id}', 'manage_dashboards'],
    ] as const) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op['x-permissions']).toEqual([permission]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
    }
    expect(doc.components.schemas.Filter.properties.attributes.properties.control_type.enum).toHaveLength(17);
    expect(doc.components.schemas.Filter.properties.attributes.properties).not.toHaveProperty('values');
  });
});
