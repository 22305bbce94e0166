import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, dashboardFilters, dashboards, datasources, filters, sqlSnippets, sqlSnippetUses } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let orgId: string;

const rel = (type: string, id: string | null) => ({ data: id ? { type, id } : null });
const report = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  type: 'reports',
  attributes,
  ...(relationships ? { relationships } : {}),
});

/** A new empty dashboard of the test organization (shared with all users unless said otherwise). */
async function makeDashboard(over: Partial<typeof dashboards.$inferInsert> = {}) {
  const id = newId('dashboard');
  await db()
    .insert(dashboards)
    .values({ id, organization_id: orgId, name: `Board ${id.slice(-4)}`, share_mode: 'all_users', ...over });
  return id;
}

async function create(attributes: Record<string, unknown>, opts: { dashboard?: string; datasource?: string; as?: string | { session: string } } = {}) {
  const res = await jsonApi(
    '/reports',
    'POST',
    report(
      { name: 'R', sql_query: 'SELECT 1', ...attributes },
      {
        dashboard: rel('dashboards', opts.dashboard ?? org.sampleDashboard.id),
        datasource: rel('datasources', opts.datasource ?? org.sampleDatasource.id),
      },
    ),
    opts.as ?? key,
  );
  expectJsonApiDocument(res.json);
  return res;
}

const layoutOf = async (id: string) => (await db().select().from(dashboards).where(eq(dashboards.id, id)))[0]!.layout;
const errorsOf = (res: { json: any }) => res.json.errors.map((e: any) => [e.code, e.source?.pointer ?? e.source?.parameter]);

beforeAll(async () => {
  org = await makeOrg('reports');
  orgId = org.organization.id;
  key = await makeKey(orgId);
});

describe('reports: create, read, update, delete', () => {
  it('creates with the spec defaults, places the tile below the others, reads, updates and deletes with audit entries', async () => {
    const dash = org.sampleDashboard.id;
    const made = await create({ name: 'Orders', sql_query: 'SELECT count(*) FROM orders' });
    expect(made.status).toBe(201);
    const id = made.json.data.id;
    expect(made.json.data).toMatchObject({
      type: 'reports',
      attributes: {
        name: 'Orders',
        description: null,
        r_query: null,
        r_query_enabled: false,
        data_refresh_rate: null,
        data_refresh_anchor_time: null,
        chart_configuration: { type: 'table' },
        download_actions_enabled: true,
        data_download_enabled: true,
        maximize_action_enabled: true,
        refresh_enabled: true,
        unused_filters_warning_enabled: false,
        unlimited_csv_export_enabled: false,
        display_name_as_title: true,
        default_page_width: 800,
        default_page_height: 600,
        attribution: null,
        no_data_message: null,
        query_error: null,
        // The sample layout ends at row 15 + height 6: the first free row is 21.
        row: 21,
        column: 1,
        width: 6,
        height: 6,
      },
      relationships: {
        dashboard: { data: { type: 'dashboards', id: dash } },
        datasource: { data: { type: 'datasources', id: org.sampleDatasource.id } },
        filters: { data: [] },
        sql_snippets: { data: [] },
      },
      links: { self: `https://api.test/reports/${id}` },
    });
    expect((await layoutOf(dash)).at(-1)).toEqual({ type: 'report', id, row: 21, column: 1, width: 6, height: 6 });

    const got = await call(`/reports/${id}?include=dashboard,datasource`, { key });
    expect(got.status).toBe(200);
    expectJsonApiDocument(got.json);
    expect(got.json.included.map((r: any) => `${r.type}/${r.id}`).sort()).toEqual([`dashboards/${dash}`, `datasources/${org.sampleDatasource.id}`]);

    const patched = await jsonApi(
      `/reports/${id}`,
      'PATCH',
      { ...report({ description: 'All orders', data_refresh_anchor_time: '06:30', refresh_enabled: false }), id },
      key,
    );
    expect(patched.status).toBe(200);
    expectJsonApiDocument(patched.json);
    expect(patched.json.data.attributes).toMatchObject({
      name: 'Orders',
      description: 'All orders',
      data_refresh_anchor_time: '06:30',
      refresh_enabled: false,
    });

    const del = await call(`/reports/${id}`, { key, method: 'DELETE' });
    expect(del.status).toBe(204);
    const gone = await call(`/reports/${id}`, { key });
    expect(gone.status).toBe(404);
    expectJsonApiDocument(gone.json);
    expect((await layoutOf(dash)).some((t) => t.id === id)).toBe(false);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, orgId), eq(auditLog.resource_id, id)));
    expect(log.map((l) => l.action).sort()).toEqual(['create', 'delete', 'update']);
    expect(log.every((l) => l.actor_type === 'api_key' && l.resource_type === 'reports')).toBe(true);
  });

  it('takes width and height on create only, and puts the first tile of an empty dashboard at row 1', async () => {
    const dash = await makeDashboard();
    const a = await create({ width: 12, height: 3 }, { dashboard: dash });
    expect(a.json.data.attributes).toMatchObject({ row: 1, column: 1, width: 12, height: 3 });
    const b = await create({ width: 4 }, { dashboard: dash });
    expect(b.json.data.attributes).toMatchObject({ row: 4, column: 1, width: 4, height: 6 });
    const res = await jsonApi(`/reports/${a.json.data.id}`, 'PATCH', { id: a.json.data.id, ...report({ width: 3, height: 2, row: 5 }) }, key);
    expect(res.status).toBe(422);
    expect(errorsOf(res)).toEqual(
      expect.arrayContaining([
        ['read_only_attribute', '/data/attributes/width'],
        ['read_only_attribute', '/data/attributes/height'],
        ['read_only_attribute', '/data/attributes/row'],
      ]),
    );
  });

  it('lists reports of visible dashboards with pagination and includes', async () => {
    const res = await call('/reports?page[size]=2&include=filters', { key });
    expect(res.status).toBe(200);
    expectJsonApiDocument(res.json);
    expect(res.json.data).toHaveLength(2);
    expect(res.json.meta.total).toBeGreaterThanOrEqual(6);
    expect(res.json.links.next).toContain('page%5Bnumber%5D=2');
    expect(res.json.included.every((r: any) => r.type === 'filters')).toBe(true);
    expect(res.json.included.length).toBe(2);
    expect((await call('/reports?include=owner', { key })).status).toBe(400);
  });
});

describe('reports: validation', () => {
  it('requires name, sql_query and the dashboard and datasource relationships', async () => {
    const res = await jsonApi('/reports', 'POST', report({ description: 'x' }), key);
    expect(res.status).toBe(422);
    expectJsonApiDocument(res.json);
    expect(errorsOf(res)).toEqual(
      expect.arrayContaining([
        ['missing_attribute', '/data/attributes/name'],
        ['missing_attribute', '/data/attributes/sql_query'],
        ['invalid_relationship', '/data/relationships/dashboard'],
        ['invalid_relationship', '/data/relationships/datasource'],
      ]),
    );
  });

  it.each([
    [{ row: 2 }, 'read_only_attribute', 'row'],
    [{ column: 2 }, 'read_only_attribute', 'column'],
    [{ chart_configuration: {} }, 'read_only_attribute', 'chart_configuration'],
    [{ query_error: 'x' }, 'read_only_attribute', 'query_error'],
    [{ created_at: '2024-01-01' }, 'read_only_attribute', 'created_at'],
    [{ colour: 'red' }, 'unknown_attribute', 'colour'],
    [{ data_refresh_anchor_time: '6:30' }, 'invalid_attribute', 'data_refresh_anchor_time'],
    [{ data_refresh_anchor_time: '24:00' }, 'invalid_attribute', 'data_refresh_anchor_time'],
    [{ data_refresh_rate: 0 }, 'invalid_attribute', 'data_refresh_rate'],
    [{ data_refresh_rate: 1.5 }, 'invalid_attribute', 'data_refresh_rate'],
    [{ width: 13 }, 'invalid_attribute', 'width'],
    [{ width: 0 }, 'invalid_attribute', 'width'],
    [{ height: 0 }, 'invalid_attribute', 'height'],
    [{ name: '' }, 'invalid_attribute', 'name'],
    [{ name: 'a\u0000b' }, 'invalid_attribute', 'name'],
    [{ sql_query: '   ' }, 'invalid_attribute', 'sql_query'],
    [{ refresh_enabled: 'yes' }, 'invalid_attribute', 'refresh_enabled'],
    [{ default_page_width: 10 }, 'invalid_attribute', 'default_page_width'],
  ])('refuses %j', async (attrs, code, attr) => {
    const res = await create(attrs);
    expect(res.status).toBe(422);
    expect(errorsOf(res)).toContainEqual([code, `/data/attributes/${attr}`]);
  });

  it('treats filters and sql_snippets as read-only, and the dashboard as create-only', async () => {
    const filterId = org.sampleDashboard.filters[0]!.id;
    const res = await jsonApi(
      '/reports',
      'POST',
      report(
        { name: 'x', sql_query: 'SELECT 1' },
        {
          dashboard: rel('dashboards', org.sampleDashboard.id),
          datasource: rel('datasources', org.sampleDatasource.id),
          filters: { data: [{ type: 'filters', id: filterId }] },
        },
      ),
      key,
    );
    expect(res.status).toBe(422);
    expect(errorsOf(res)).toContainEqual(['read_only_attribute', '/data/relationships/filters']);
    const id = (await create({})).json.data.id;
    const move = await jsonApi(`/reports/${id}`, 'PATCH', { id, ...report({}, { dashboard: rel('dashboards', await makeDashboard()) }) }, key);
    expect(move.status).toBe(422);
    expect(errorsOf(move)).toContainEqual(['read_only_attribute', '/data/relationships/dashboard']);
  });

  it('checks the datasource: in the organization, enabled, allowed for the key', async () => {
    const other = await makeOrg('reports-other');
    const foreign = await create({}, { datasource: other.sampleDatasource.id });
    expect(foreign.status).toBe(422);
    expect(errorsOf(foreign)).toContainEqual(['invalid_relationship', '/data/relationships/datasource']);
    const disabled = newId('datasource');
    await db()
      .insert(datasources)
      .values({ id: disabled, organization_id: orgId, name: 'Off', database_type: 'postgres', connection_mode: 'direct', enabled: false });
    const off = await create({}, { datasource: disabled });
    expect(off.status).toBe(422);
    expect(off.json.errors[0].code).toBe('invalid_state');
    // Manage Dashboards restricted to a datasource reaches reports on it only, on dashboards the key may see.
    const restricted = await makeKey(orgId, [
      { permission: 'view_dashboards', resources: null },
      { permission: 'manage_dashboards', resources: [{ type: 'datasources', id: disabled }] },
    ]);
    const denied = await create({}, { as: restricted });
    expect(denied.status).toBe(403);
    // Without View Dashboards such a key sees no dashboard at all (a datasource names none).
    const blind = await makeKey(orgId, [{ permission: 'manage_dashboards', resources: [{ type: 'datasources', id: org.sampleDatasource.id }] }]);
    expect(errorsOf(await create({}, { as: blind }))).toContainEqual(['invalid_relationship', '/data/relationships/dashboard']);
    const movedId = (await create({})).json.data.id;
    const moved = await jsonApi(`/reports/${movedId}`, 'PATCH', { id: movedId, ...report({}, { datasource: rel('datasources', disabled) }) }, key);
    expect(moved.status).toBe(422);
    expect(moved.json.errors[0].code).toBe('invalid_state');
    // A key restricted to a datasource cannot change a report on another one.
    const onSample = (await create({})).json.data.id;
    expect((await jsonApi(`/reports/${onSample}`, 'PATCH', { id: onSample, ...report({ name: 'n' }) }, restricted)).status).toBe(403);
  });

  it("refuses another organization's dashboard as a 422, and a malformed body as 400/409/415", async () => {
    const other = await makeOrg('reports-other2');
    const res = await create({}, { dashboard: other.sampleDashboard.id });
    expect(res.status).toBe(422);
    expect(errorsOf(res)).toContainEqual(['invalid_relationship', '/data/relationships/dashboard']);
    expect((await call('/reports', { key, method: 'POST', rawBody: '{', contentType: 'application/vnd.api+json' })).status).toBe(400);
    expect((await jsonApi('/reports', 'POST', { type: 'filters', attributes: {} }, key)).status).toBe(409);
    expect((await call('/reports', { key, method: 'POST', body: { data: report({ name: 'x' }) } })).status).toBe(415);
  });
});

describe('reports: what the SQL uses', () => {
  it('records the dashboard filters the SQL mentions and creates ad hoc filters for unknown variables', async () => {
    const dash = await makeDashboard();
    const res = await create(
      {
        sql_query:
          "SELECT * FROM orders WHERE {country=region} AND {[o.status]=order_status} AND {ordered_at=timerange} -- {x=commented}\n AND note <> '{y=quoted}'",
      },
      { dashboard: dash },
    );
    expect(res.status).toBe(201);
    const linked = res.json.data.relationships.filters.data.map((f: any) => f.id);
    expect(linked).toHaveLength(2);
    const rows = await db().select().from(filters).where(eq(filters.organization_id, orgId));
    const made = rows.filter((f) => linked.includes(f.id));
    expect(made.map((f) => f.variable_name).sort()).toEqual(['order_status', 'region']);
    expect(made.every((f) => f.control_type === 'dropdown_multi' && f.value_type === 'TEXT')).toBe(true);
    const onBoard = await db().select().from(dashboardFilters).where(eq(dashboardFilters.dashboard_id, dash));
    expect(onBoard.map((m) => m.filter_id).sort()).toEqual([...linked].sort());
    // Saving again reuses the dashboard's filters instead of creating new ones.
    const again = await create({ sql_query: 'SELECT 1 WHERE {a=region}' }, { dashboard: dash });
    expect(again.json.data.relationships.filters.data.map((f: any) => f.id)).toEqual([made.find((f) => f.variable_name === 'region')!.id]);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, orgId), eq(auditLog.resource_type, 'filters'), eq(auditLog.action, 'create')));
    expect(log.filter((l) => linked.includes(l.resource_id!))).toHaveLength(2);
  });

  it('links the sample filters and the snippets the SQL uses, following nested snippets for variables', async () => {
    const inner = newId('sql_snippet');
    const outer = newId('sql_snippet');
    await db()
      .insert(sqlSnippets)
      .values([
        { id: inner, organization_id: orgId, name: 'by_country', text: '{[o.country]=country}' },
        { id: outer, organization_id: orgId, name: 'completed', text: "o.status <> 'cancelled' AND [by_country]" },
      ]);
    const res = await create({ sql_query: 'SELECT count(*) FROM orders o WHERE [completed] AND [no_such_snippet]' });
    expect(res.status).toBe(201);
    expect(res.json.data.relationships.sql_snippets.data).toEqual([{ type: 'sql_snippets', id: outer }]);
    const country = org.sampleDashboard.filters.find((f) => f.variable_name === 'country')!.id;
    expect(res.json.data.relationships.filters.data).toEqual([{ type: 'filters', id: country }]);
    const got = await call(`/reports/${res.json.data.id}?include=sql_snippets,filters`, { key });
    expectJsonApiDocument(got.json);
    expect(got.json.included.map((r: any) => `${r.type}/${r.id}`).sort()).toEqual([`filters/${country}`, `sql_snippets/${outer}`]);
    // Changing the SQL re-records the uses.
    const patched = await jsonApi(`/reports/${res.json.data.id}`, 'PATCH', { id: res.json.data.id, ...report({ sql_query: 'SELECT 1' }) }, key);
    expect(patched.json.data.relationships).toMatchObject({ sql_snippets: { data: [] }, filters: { data: [] } });
    const uses = await db()
      .select()
      .from(sqlSnippetUses)
      .where(and(eq(sqlSnippetUses.owner_type, 'report'), eq(sqlSnippetUses.owner_id, res.json.data.id)));
    expect(uses).toEqual([]);
  });
});

describe('reports: duplicate and locked dashboards', () => {
  it('duplicates onto the same dashboard below the other tiles, with the SQL links', async () => {
    const dash = await makeDashboard();
    const first = await create({ name: 'Base', sql_query: 'SELECT 1 WHERE {c=dup_var}', width: 8, height: 4 }, { dashboard: dash });
    const copy = await call(`/reports/${first.json.data.id}/duplicate`, { key, method: 'POST' });
    expect(copy.status).toBe(201);
    expectJsonApiDocument(copy.json);
    expect(copy.json.data.id).not.toBe(first.json.data.id);
    expect(copy.json.data.attributes).toMatchObject({ name: 'Base (copy)', sql_query: 'SELECT 1 WHERE {c=dup_var}', row: 5, column: 1, width: 8, height: 4 });
    expect(copy.json.data.relationships.dashboard.data.id).toBe(dash);
    expect(copy.json.data.relationships.filters).toEqual(first.json.data.relationships.filters);
    const named = await call(`/reports/${first.json.data.id}/duplicate`, { key, method: 'POST', body: { name: 'Second' } });
    expect(named.json.data.attributes).toMatchObject({ name: 'Second', row: 9 });
    const bad = await call(`/reports/${first.json.data.id}/duplicate`, { key, method: 'POST', body: { name: 'x', extra: 1 } });
    expect(bad.status).toBe(422);
    expect((await call(`/reports/rep_nope/duplicate`, { key, method: 'POST' })).status).toBe(404);
  });

  it('refuses changes on a locked dashboard with 422 invalid_state', async () => {
    const dash = await makeDashboard();
    const id = (await create({}, { dashboard: dash })).json.data.id;
    await db().update(dashboards).set({ is_locked: true }).where(eq(dashboards.id, dash));
    for (const res of [
      await create({}, { dashboard: dash }),
      await jsonApi(`/reports/${id}`, 'PATCH', { id, ...report({ name: 'x' }) }, key),
      await call(`/reports/${id}`, { key, method: 'DELETE' }),
      await call(`/reports/${id}/duplicate`, { key, method: 'POST' }),
    ]) {
      expect(res.status).toBe(422);
      expectJsonApiDocument(res.json);
      expect(res.json.errors[0].code).toBe('invalid_state');
    }
    expect((await call(`/reports/${id}`, { key })).status).toBe(200);
    await db().update(dashboards).set({ is_locked: false }).where(eq(dashboards.id, dash));
    expect((await jsonApi(`/reports/${id}`, 'PATCH', { id, ...report({ name: 'x' }) }, key)).status).toBe(200);
  });
});

describe('reports: permissions', () => {
  it('viewers read, analysts write, view-only keys cannot write', async () => {
    const viewer = await makeUser(orgId, 'viewer');
    const analyst = await makeUser(orgId, 'analyst');
    const id = org.sampleDashboard.reports[0]!.id;
    expect((await call(`/reports/${id}`, { session: viewer.session })).status).toBe(200);
    const denied = await create({}, { as: { session: viewer.session } });
    expect(denied.status).toBe(403);
    expect(denied.json.errors[0].code).toBe('forbidden');
    const made = await create({}, { as: { session: analyst.session } });
    expect(made.status).toBe(201);
    const viewKey = await makeKey(orgId, only('view_dashboards'));
    expect((await call(`/reports/${id}`, { key: viewKey })).status).toBe(200);
    expect((await create({}, { as: viewKey })).status).toBe(403);
    expect((await call(`/reports/${made.json.data.id}`, { key: viewKey, method: 'DELETE' })).status).toBe(403);
    expect((await call(`/reports/${id}`, { key: await makeKey(orgId, only('view_schedules')) })).status).toBe(403);
  });

  it('lets signed-in users write chart_configuration (the app’s editor) and refuses it from API keys', async () => {
    const analyst = await makeUser(orgId, 'analyst');
    const chart = { type: 'bar', x: 'country', y: ['revenue'], grouping: 'stacked' };
    const made = await create({ chart_configuration: chart }, { as: { session: analyst.session } });
    expect(made.status).toBe(201);
    expect(made.json.data.attributes.chart_configuration).toEqual(chart);
    const id = made.json.data.id;
    const patched = await jsonApi(`/reports/${id}`, 'PATCH', { id, ...report({ chart_configuration: { type: 'pie' } }) }, { session: analyst.session });
    expect(patched.status).toBe(200);
    expect(patched.json.data.attributes.chart_configuration).toEqual({ type: 'pie' });
    const bad = await jsonApi(`/reports/${id}`, 'PATCH', { id, ...report({ chart_configuration: ['bar'] }) }, { session: analyst.session });
    expect(bad.status).toBe(422);
    expect(errorsOf(bad)).toEqual([['invalid_attribute', '/data/attributes/chart_configuration']]);
    const byKey = await jsonApi(`/reports/${id}`, 'PATCH', { id, ...report({ chart_configuration: { type: 'line' } }) }, key);
    expect(byKey.status).toBe(422);
    expect(errorsOf(byKey)).toEqual([['read_only_attribute', '/data/attributes/chart_configuration']]);
    expect((await call(`/reports/${id}`, { key })).json.data.attributes.chart_configuration).toEqual({ type: 'pie' });
  });

  it('hides reports of dashboards the caller may not see (private dashboards, restricted keys)', async () => {
    const priv = await makeDashboard({ share_mode: 'none', user_id: org.admin.id });
    const id = (await create({}, { dashboard: priv })).json.data.id;
    const viewer = await makeUser(orgId, 'viewer');
    const hidden = await call(`/reports/${id}`, { session: viewer.session });
    expect(hidden.status).toBe(404);
    expectJsonApiDocument(hidden.json);
    const list = await call('/reports?page[size]=200', { session: viewer.session });
    expect(list.json.data.map((r: any) => r.id)).not.toContain(id);
    const elsewhere = await makeKey(orgId, [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: org.sampleDashboard.id }] }]);
    expect((await call(`/reports/${id}`, { key: elsewhere })).status).toBe(404);
    expect((await call(`/reports/${org.sampleDashboard.reports[0]!.id}`, { key: elsewhere })).status).toBe(200);
    const manageOther = await makeKey(orgId, [
      { permission: 'view_dashboards', resources: null },
      { permission: 'manage_dashboards', resources: [{ type: 'dashboards', id: org.sampleDashboard.id }] },
    ]);
    expect((await create({}, { dashboard: priv, as: manageOther })).status).toBe(403);
    expect((await jsonApi(`/reports/${id}`, 'PATCH', { id, ...report({ name: 'x' }) }, manageOther)).status).toBe(403);
    expect((await create({}, { as: manageOther })).status).toBe(201);
  });

  it('includes the datasource only with View/Manage Datasources or Manage Dashboards, credentials only with Manage Datasources', async () => {
    const id = org.sampleDashboard.reports[0]!.id;
    const viewOnly = await makeKey(orgId, only('view_dashboards'));
    const res = await call(`/reports/${id}?include=datasource`, { key: viewOnly });
    expect(res.status).toBe(403);
    expectJsonApiDocument(res.json);
    expect(res.json.errors[0].source).toEqual({ parameter: 'include' });
    const withDs = await call(`/reports/${id}?include=datasource`, { key: await makeKey(orgId, only('view_dashboards', 'view_datasources')) });
    expect(withDs.status).toBe(200);
    expect(withDs.json.included[0].attributes).toMatchObject({ name: 'Sample data', database_type: 'postgres' });
    expect(withDs.json.included[0].attributes).not.toHaveProperty('username');
    const full = await call(`/reports/${id}?include=datasource`, { key });
    expect(full.json.included[0].attributes).toHaveProperty('username');
    expect(full.json.included[0].attributes).not.toHaveProperty('password');
    expect(JSON.stringify(full.json)).not.toContain('password_encrypted');
  });

  it("answers 404 for another organization's report on every call", async () => {
    const other = await makeOrg('reports-intruder');
    const foreign = other.sampleDashboard.reports[0]!.id;
    for (const res of [
      await call(`/reports/${foreign}`, { key }),
      await jsonApi(`/reports/${foreign}`, 'PATCH', { id: foreign, ...report({ name: 'x' }) }, key),
      await call(`/reports/${foreign}`, { key, method: 'DELETE' }),
      await call(`/reports/${foreign}/duplicate`, { key, method: 'POST' }),
    ]) {
      expect(res.status).toBe(404);
      expectJsonApiDocument(res.json);
    }
  });

  it('concurrent updates of different attributes both survive', async () => {
    const id = (await create({ name: 'Race' })).json.data.id;
    await Promise.all([
      jsonApi(`/reports/${id}`, 'PATCH', { id, ...report({ name: 'Race 2' }) }, key),
      jsonApi(`/reports/${id}`, 'PATCH', { id, ...report({ description: 'described' }) }, key),
      jsonApi(`/reports/${id}`, 'PATCH', { id, ...report({ no_data_message: 'nothing' }) }, key),
    ]);
    const got = await call(`/reports/${id}`, { key });
    expect(got.json.data.attributes).toMatchObject({ name: 'Race 2', description: 'described', no_data_message: 'nothing' });
  });
});

describe('reports: OpenAPI', () => {
  it('documents every call with its permission, request schema and error answers', async () => {
    const doc = (await call('/openapi.json')).json;
    const ops: [string, string, string, string[]][] = [
      ['get', '/reports', 'view_dashboards', ['400', '401', '403', '429']],
      ['post', '/reports', 'manage_dashboards', ['401', '403', '415', '422', '429']],
      ['get', '/reports/{id}', 'view_dashboards', ['401', '403', '404', '429']],
      ['patch', '/reports/{id}', 'manage_dashboards', ['401', '403', '404', '415', '422', '429']],
      ['delete', '/reports/{id}', 'manage_dashboards', ['401', '403', '404', '422', '429']],
      ['post', '/reports/{id}/duplicate', 'manage_dashboards', ['401', '403', '404', '422', '429']],
      ['post', '/reports/{id}/data', 'view_dashboards', ['401', '403', '404', '422', '429']],
    ];
    for (const [method, path, permission, errors] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op['x-permissions']).toEqual([permission]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(errors));
    }
    const create = doc.paths['/reports'].post.requestBody.content['application/vnd.api+json'].schema;
    expect(JSON.stringify(create)).toContain('sql_query');
    expect(doc.components.schemas.Report.properties.attributes.properties).toHaveProperty('chart_configuration');
    expect(doc.components.schemas.Report.properties.attributes.properties).toHaveProperty('row');
  });
});
