import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import {
  auditLog,
  dashboardGroupMembers,
  dashboardGroups,
  dashboards,
  dashboardSharingLinks,
  filters,
  reportFilters,
  reports,
  sqlSnippets,
  sqlSnippetUses,
} from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let other: CreateOrganizationResult;
let key: string;
let orgId: string;
const dash = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  type: 'dashboards',
  attributes,
  ...(relationships ? { relationships } : {}),
});
const create = async (attributes: Record<string, unknown>, relationships?: Record<string, unknown>, k: string | { session: string } = key) => {
  const res = await jsonApi('/dashboards', 'POST', dash(attributes, relationships), typeof k === 'string' ? k : { session: k.session });
  expectJsonApiDocument(res.json);
  return res;
};
const patch = (id: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>, k: string = key) =>
  jsonApi(`/dashboards/${id}`, 'PATCH', { ...dash(attributes, relationships), id }, k);
/** The pointers of a 422 answer (checked to be a JSON:API error document). */
const pointers = (res: { status: number; json: any }) => {
  expect(res.status, JSON.stringify(res.json)).toBe(422);
  expectJsonApiDocument(res.json);
  return res.json.errors.map((e: any) => e.source?.pointer);
};

beforeAll(async () => {
  [org, other] = await Promise.all([makeOrg('dash-write'), makeOrg('dash-write-other')]);
  orgId = org.organization.id;
  key = await makeKey(orgId);
});

describe('POST /dashboards', () => {
  it('creates with a name and gives every other attribute its default; the creation is audited', async () => {
    const res = await create({ name: 'Plain' });
    expect(res.status).toBe(201);
    expect(res.json.data.attributes).toEqual({
      name: 'Plain',
      description: null,
      time_zone_config: { type: 'organization' },
      automatic_update_enabled: true,
      thumbnail_enabled: true,
      thumbnail_image_url: null,
      thumbnail_created_at: null,
      prewarm: false,
      published: false,
      data_refresh_rate: 1440,
      data_refresh_anchor_time: null,
      is_locked: false,
      default_parameters: {},
      default_page_width: 1600,
      layout: [],
      floating_enabled: false,
      color_scheme: 'scheme_6',
      filters_configuration: {},
      share_mode: 'none',
      series_colors: {},
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // Created by an API key: no creator user.
    expect(res.json.data.relationships.user.data).toBeNull();
    const id = res.json.data.id;
    expect(id).toMatch(/^dsh_/);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, orgId), eq(auditLog.resource_id, id)));
    expect(log).toMatchObject([{ action: 'create', resource_type: 'dashboards', actor_type: 'api_key' }]);
    expect((await call(`/dashboards/${id}`, { key })).status).toBe(200);
  });

  it('stores every writable attribute and the filters (in order) and snippets relationships', async () => {
    const snippet = newId('sql_snippet');
    await db().insert(sqlSnippets).values({ id: snippet, organization_id: orgId, name: 'paid', text: "status = 'paid'" });
    const [f1, f2] = org.sampleDashboard.filters.map((f) => f.id);
    const attributes = {
      name: 'Full',
      description: 'All of it',
      time_zone_config: { type: 'input', fixed_time_zone: null, allowed_time_zones: ['Europe/Berlin', 'America/New_York', 'UTC'] },
      automatic_update_enabled: false,
      thumbnail_enabled: false,
      prewarm: true,
      data_refresh_rate: 15,
      data_refresh_anchor_time: '06:30',
      is_locked: false,
      default_parameters: {
        timerange: '1700000000~1710000000',
        aggregation: 'week',
        tz: 'Europe/Berlin',
        filters: [{ variable_name: 'country', selected_values: ['DE'] }],
      },
      default_page_width: 1200,
      color_scheme: 'scheme_2',
      filters_configuration: {
        apply_immediately: false,
        aggregation_options: ['day', 'week'],
        filter_sorting: ['country', 'order_date'],
        hidden_parameters: ['country'],
      },
    };
    const res = await create(attributes, {
      filters: {
        data: [
          { type: 'filters', id: f2 },
          { type: 'filters', id: f1 },
        ],
      },
      sql_snippets: { data: [{ type: 'sql_snippets', id: snippet }] },
    });
    expect(res.status).toBe(201);
    expect(res.json.data.attributes).toMatchObject(attributes);
    expect(res.json.data.relationships.filters.data.map((f: any) => f.id)).toEqual([f2, f1]);
    expect(res.json.data.relationships.sql_snippets.data).toEqual([{ type: 'sql_snippets', id: snippet }]);
    const fixed = await create({ name: 'Fixed zone', time_zone_config: { type: 'fixed', fixed_time_zone: 'Asia/Kolkata' } });
    expect(fixed.status).toBe(201);
    expect(fixed.json.data.attributes.time_zone_config).toEqual({ type: 'fixed', fixed_time_zone: 'Asia/Kolkata' });
  });

  it('records the signed-in creator, whose private dashboard other analysts cannot reach but admins can', async () => {
    const analyst = await makeUser(orgId, 'analyst');
    const res = await create({ name: 'Mine' }, undefined, { session: analyst.session });
    expect(res.status).toBe(201);
    expect(res.json.data.relationships.user.data).toEqual({ type: 'users', id: analyst.id });
    const id = res.json.data.id;
    const peer = await makeUser(orgId, 'analyst');
    expect((await call(`/dashboards/${id}`, { session: peer.session })).status).toBe(404);
    expect((await call('/dashboards?page[size]=200', { session: peer.session })).json.data.map((d: any) => d.id)).not.toContain(id);
    expect((await patch(id, { name: 'x' }, undefined, '')).status).toBe(401);
    expect((await jsonApi(`/dashboards/${id}`, 'PATCH', { ...dash({ name: 'x' }), id }, { session: peer.session })).status).toBe(404);
    const admin = await makeUser(orgId, 'admin');
    expect((await call(`/dashboards/${id}`, { session: admin.session })).status).toBe(200);
    expect((await call(`/dashboards/${id}`, { session: analyst.session })).status).toBe(200);
  });

  it('refuses every read-only attribute with a pointer to it', async () => {
    const readOnly = {
      published: true,
      layout: [],
      floating_enabled: true,
      thumbnail_image_url: 'https://x.test/a.png',
      thumbnail_created_at: '2024-01-01T00:00:00Z',
      share_mode: 'all_users',
      created_at: '2024-01-01T00:00:00Z',
      updated_at: '2024-01-01T00:00:00Z',
    };
    const res = await create({ name: 'x', ...readOnly });
    expect(pointers(res).sort()).toEqual(
      Object.keys(readOnly)
        .map((k) => `/data/attributes/${k}`)
        .sort(),
    );
    expect(res.json.errors.every((e: any) => e.code === 'read_only_attribute')).toBe(true);
    const made = await create({ name: 'ro' });
    const p = await patch(made.json.data.id, { share_mode: 'custom' });
    expect(pointers(p)).toEqual(['/data/attributes/share_mode']);
    expect(p.json.errors[0].code).toBe('read_only_attribute');
  });

  it('validates each attribute with a pointer', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, '/data/attributes/name'],
      [{ name: '   ' }, '/data/attributes/name'],
      [{ name: 'x'.repeat(201) }, '/data/attributes/name'],
      [{ time_zone_config: { type: 'sometimes' } }, '/data/attributes/time_zone_config/type'],
      [{ time_zone_config: { type: 'fixed' } }, '/data/attributes/time_zone_config/fixed_time_zone'],
      [{ time_zone_config: { type: 'fixed', fixed_time_zone: 'Mars/Olympus_Mons' } }, '/data/attributes/time_zone_config/fixed_time_zone'],
      [{ time_zone_config: { type: 'fixed', fixed_time_zone: '+01:00' } }, '/data/attributes/time_zone_config/fixed_time_zone'],
      [
        { time_zone_config: { type: 'input', allowed_time_zones: ['Europe/Berlin', 'Nowhere/Town'] } },
        '/data/attributes/time_zone_config/allowed_time_zones/1',
      ],
      [{ time_zone_config: { type: 'organization', zone: 'UTC' } }, '/data/attributes/time_zone_config'],
      [{ time_zone_config: 'UTC' }, '/data/attributes/time_zone_config'],
      [{ color_scheme: 'scheme_9' }, '/data/attributes/color_scheme'],
      [{ color_scheme: 'scheme_0' }, '/data/attributes/color_scheme'],
      [{ data_refresh_rate: 0 }, '/data/attributes/data_refresh_rate'],
      [{ data_refresh_rate: -60 }, '/data/attributes/data_refresh_rate'],
      [{ data_refresh_rate: 1.5 }, '/data/attributes/data_refresh_rate'],
      [{ data_refresh_rate: '60' }, '/data/attributes/data_refresh_rate'],
      [{ data_refresh_anchor_time: '24:00' }, '/data/attributes/data_refresh_anchor_time'],
      [{ data_refresh_anchor_time: '9:30' }, '/data/attributes/data_refresh_anchor_time'],
      [{ data_refresh_anchor_time: '12:60' }, '/data/attributes/data_refresh_anchor_time'],
      [{ data_refresh_anchor_time: '12:30:00' }, '/data/attributes/data_refresh_anchor_time'],
      [{ default_page_width: 100 }, '/data/attributes/default_page_width'],
      [{ default_page_width: 100_000 }, '/data/attributes/default_page_width'],
      [{ default_parameters: { aggregation: 'fortnight' } }, '/data/attributes/default_parameters/aggregation'],
      [{ default_parameters: { filters: [{ variable_name: 'x' }] } }, '/data/attributes/default_parameters/filters/0/selected_values'],
      [{ default_parameters: { colour: 'red' } }, '/data/attributes/default_parameters'],
      [{ filters_configuration: { apply_immediately: 'yes' } }, '/data/attributes/filters_configuration/apply_immediately'],
      [{ filters_configuration: { aggregation_options: ['day', 'decade'] } }, '/data/attributes/filters_configuration/aggregation_options/1'],
      [{ filters_configuration: { hidden_parameters: ['bad name!'] } }, '/data/attributes/filters_configuration/hidden_parameters/0'],
      [{ filters_configuration: { sort: [] } }, '/data/attributes/filters_configuration'],
      [{ is_locked: 'no' }, '/data/attributes/is_locked'],
      [{ prewarm: 1 }, '/data/attributes/prewarm'],
      [{ owner: 'me' }, '/data/attributes/owner'],
    ];
    for (const [attrs, pointer] of cases) {
      // A name is added unless the case is about the name.
      const res = await create(Object.keys(attrs).length === 0 || 'name' in attrs ? attrs : { name: 'Valid', ...attrs });
      expect(pointers(res), JSON.stringify(attrs)).toContain(pointer);
    }
  });

  it('names a bad time zone and an unknown filter in the detail', async () => {
    const tz = await create({ name: 'x', time_zone_config: { type: 'fixed', fixed_time_zone: 'Mars/Olympus_Mons' } });
    expect(tz.json.errors[0].detail).toContain('Mars/Olympus_Mons');
    const unknown = await create({ name: 'x' }, { filters: { data: [{ type: 'filters', id: other.sampleDashboard.filters[0]!.id }] } });
    expect(pointers(unknown)).toEqual(['/data/relationships/filters/data/0/id']);
    expect(unknown.json.errors[0].code).toBe('invalid_relationship');
    const snip = await create({ name: 'x' }, { sql_snippets: { data: [{ type: 'sql_snippets', id: 'snp_nope' }] } });
    expect(pointers(snip)).toEqual(['/data/relationships/sql_snippets/data/0/id']);
    const reportsRel = await create({ name: 'x' }, { reports: { data: [] } });
    expect(pointers(reportsRel)).toEqual(['/data/relationships/reports']);
  });

  it('needs the JSON:API media type and the dashboards type', async () => {
    expect((await call('/dashboards', { key, method: 'POST', body: { data: dash({ name: 'x' }) } })).status).toBe(415);
    const wrong = await jsonApi('/dashboards', 'POST', { type: 'reports', attributes: { name: 'x' } }, key);
    expect(wrong.status).toBe(409);
    expectJsonApiDocument(wrong.json);
  });
});

describe('PATCH /dashboards/{id}', () => {
  it('changes only the attributes sent and replaces relationship lists', async () => {
    const [f1, f2] = org.sampleDashboard.filters.map((f) => f.id);
    const made = await create({ name: 'Patch me', description: 'keep', color_scheme: 'scheme_3' }, { filters: { data: [{ type: 'filters', id: f1 }] } });
    const id = made.json.data.id;
    const res = await patch(
      id,
      { name: 'Patched', data_refresh_anchor_time: '23:59' },
      {
        filters: {
          data: [
            { type: 'filters', id: f2 },
            { type: 'filters', id: f1 },
          ],
        },
      },
    );
    expect(res.status).toBe(200);
    expectJsonApiDocument(res.json);
    expect(res.json.data.attributes).toMatchObject({ name: 'Patched', description: 'keep', color_scheme: 'scheme_3', data_refresh_anchor_time: '23:59' });
    expect(res.json.data.relationships.filters.data.map((f: any) => f.id)).toEqual([f2, f1]);
    const cleared = await patch(id, { description: null, data_refresh_anchor_time: null }, { filters: { data: [] } });
    expect(cleared.json.data.attributes).toMatchObject({ description: null, data_refresh_anchor_time: null, name: 'Patched' });
    expect(cleared.json.data.relationships.filters.data).toEqual([]);
    const bad = await patch(id, { data_refresh_rate: 0 });
    expect(pointers(bad)).toEqual(['/data/attributes/data_refresh_rate']);
    const mismatch = await jsonApi(`/dashboards/${id}`, 'PATCH', { ...dash({ name: 'x' }), id: 'dsh_other' }, key);
    expect(mismatch.status).toBe(409);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.resource_id, id), eq(auditLog.action, 'update')));
    expect(log.length).toBe(2);
    expect(log[0]!.details).toMatchObject({ attributes: expect.arrayContaining(['name']) });
  });

  it("answers 404 for another organization's dashboard and an unknown id", async () => {
    for (const id of [other.sampleDashboard.id, 'dsh_unknown']) {
      const res = await patch(id, { name: 'x' });
      expect(res.status).toBe(404);
      expectJsonApiDocument(res.json);
      expect((await call(`/dashboards/${id}`, { key, method: 'DELETE' })).status).toBe(404);
    }
  });

  it('keeps every field of concurrent updates of different attributes', async () => {
    for (let round = 0; round < 3; round++) {
      const id = (await create({ name: `Race ${round}` })).json.data.id;
      const results = await Promise.all([
        patch(id, { name: `Raced ${round}` }),
        patch(id, { description: 'described' }),
        patch(id, { color_scheme: 'scheme_1' }),
        patch(id, { data_refresh_rate: 30 }),
        patch(id, { prewarm: true }),
      ]);
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      const got = await call(`/dashboards/${id}`, { key });
      expect(got.json.data.attributes).toMatchObject({
        name: `Raced ${round}`,
        description: 'described',
        color_scheme: 'scheme_1',
        data_refresh_rate: 30,
        prewarm: true,
      });
    }
  });
});

describe('lock and unlock', () => {
  it('protects a locked dashboard from PATCH, layout, share and DELETE until it is unlocked', async () => {
    const id = (await create({ name: 'Lockable' })).json.data.id;
    const locked = await call(`/dashboards/${id}/lock`, { key, method: 'POST' });
    expect(locked.status).toBe(200);
    expectJsonApiDocument(locked.json);
    expect(locked.json.data.attributes.is_locked).toBe(true);
    // Locking again changes nothing.
    expect((await call(`/dashboards/${id}/lock`, { key, method: 'POST' })).json.data.attributes.is_locked).toBe(true);
    const refused = [
      await patch(id, { name: 'nope' }),
      await call(`/dashboards/${id}/layout`, { key, method: 'PUT', body: { layout: [] } }),
      await call(`/dashboards/${id}/share`, { key, method: 'POST', body: { share_mode: 'all_users' } }),
      await call(`/dashboards/${id}`, { key, method: 'DELETE' }),
    ];
    for (const r of refused) {
      expect(r.status).toBe(422);
      expectJsonApiDocument(r.json);
      expect(r.json.errors[0].code).toBe('invalid_state');
    }
    expect((await call(`/dashboards/${id}`, { key })).json.data.attributes).toMatchObject({ name: 'Lockable', share_mode: 'none', is_locked: true });
    const unlocked = await call(`/dashboards/${id}/lock`, { key, method: 'DELETE' });
    expect(unlocked.status).toBe(200);
    expect(unlocked.json.data.attributes.is_locked).toBe(false);
    expect((await call(`/dashboards/${id}/lock`, { key, method: 'DELETE' })).json.data.attributes.is_locked).toBe(false);
    expect((await patch(id, { name: 'Edited' })).status).toBe(200);
    const actions = (await db().select().from(auditLog).where(eq(auditLog.resource_id, id))).map((l) => l.action);
    expect(actions.filter((a) => a === 'lock')).toHaveLength(2);
    expect(actions.filter((a) => a === 'unlock')).toHaveLength(2);
  });

  it('lets one PATCH unlock and edit at once, and lock through is_locked', async () => {
    const id = (await create({ name: 'Patch lock', is_locked: true })).json.data.id;
    expect((await patch(id, { name: 'still locked' })).status).toBe(422);
    const res = await patch(id, { is_locked: false, name: 'Unlocked and renamed' });
    expect(res.status).toBe(200);
    expect(res.json.data.attributes).toMatchObject({ is_locked: false, name: 'Unlocked and renamed' });
    expect((await patch(id, { is_locked: true })).json.data.attributes.is_locked).toBe(true);
    expect((await patch(id, { description: 'x' })).status).toBe(422);
  });

  it('needs Manage Dashboards on the dashboard', async () => {
    const id = (await create({ name: 'Lock perms' })).json.data.id;
    const viewKey = await makeKey(orgId, only('view_dashboards'));
    expect((await call(`/dashboards/${id}/lock`, { key: viewKey, method: 'POST' })).status).toBe(403);
    const viewer = await makeUser(orgId, 'viewer');
    expect((await call(`/dashboards/${org.sampleDashboard.id}/lock`, { session: viewer.session, method: 'POST' })).status).toBe(403);
    expect((await call(`/dashboards/${other.sampleDashboard.id}/lock`, { key, method: 'POST' })).status).toBe(404);
  });
});

describe('DELETE /dashboards/{id}', () => {
  it('deletes the dashboard with its reports, links and snippet uses; filters and snippets stay', async () => {
    const snippet = newId('sql_snippet');
    await db().insert(sqlSnippets).values({ id: snippet, organization_id: orgId, name: 'del', text: '1' });
    const filterId = org.sampleDashboard.filters[0]!.id;
    const id = (
      await create(
        { name: 'Doomed' },
        {
          filters: { data: [{ type: 'filters', id: filterId }] },
          sql_snippets: { data: [{ type: 'sql_snippets', id: snippet }] },
        },
      )
    ).json.data.id;
    const reportId = newId('report');
    await db()
      .insert(reports)
      .values({ id: reportId, organization_id: orgId, dashboard_id: id, datasource_id: org.sampleDatasource.id, name: 'r', sql_query: 'select 1' });
    await db().insert(reportFilters).values({ organization_id: orgId, report_id: reportId, filter_id: filterId });
    await db().insert(sqlSnippetUses).values({ organization_id: orgId, owner_type: 'report', owner_id: reportId, sql_snippet_id: snippet });
    const link = await jsonApi(
      '/dashboard_sharing_links',
      'POST',
      {
        type: 'dashboard_sharing_links',
        attributes: { name: 'l' },
        relationships: { dashboard: { data: { type: 'dashboards', id } } },
      },
      key,
    );
    expect(link.status).toBe(201);
    const res = await call(`/dashboards/${id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(204);
    expect((await call(`/dashboards/${id}`, { key })).status).toBe(404);
    expect(await db().select().from(reports).where(eq(reports.id, reportId))).toEqual([]);
    expect(await db().select().from(dashboardSharingLinks).where(eq(dashboardSharingLinks.dashboard_id, id))).toEqual([]);
    expect(await db().select().from(sqlSnippetUses).where(eq(sqlSnippetUses.sql_snippet_id, snippet))).toEqual([]);
    expect(await db().select().from(filters).where(eq(filters.id, filterId))).toHaveLength(1);
    expect(await db().select().from(sqlSnippets).where(eq(sqlSnippets.id, snippet))).toHaveLength(1);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.resource_id, id), eq(auditLog.action, 'delete')));
    expect(log).toHaveLength(1);
  });
});

describe('permissions', () => {
  it('lets viewers read but not write; view-only keys neither create nor change', async () => {
    const viewer = await makeUser(orgId, 'viewer');
    expect((await call('/dashboards', { session: viewer.session })).status).toBe(200);
    const made = await create({ name: 'nope' }, undefined, { session: viewer.session });
    expect(made.status).toBe(403);
    expect(made.json.errors[0].code).toBe('forbidden');
    const viewKey = await makeKey(orgId, only('view_dashboards'));
    expect((await create({ name: 'nope' }, undefined, viewKey)).status).toBe(403);
    expect((await patch(org.sampleDashboard.id, { name: 'nope' }, undefined, viewKey)).status).toBe(403);
    expect((await call(`/dashboards/${org.sampleDashboard.id}`, { key: viewKey, method: 'DELETE' })).status).toBe(403);
    const analyst = await makeUser(orgId, 'analyst');
    expect((await create({ name: 'analyst made' }, undefined, { session: analyst.session })).status).toBe(201);
  });

  it('keeps a key restricted to named dashboards to those, and away from creating new ones', async () => {
    const a = (await create({ name: 'Restricted A' })).json.data.id;
    const b = (await create({ name: 'Restricted B' })).json.data.id;
    const restricted = await makeKey(orgId, [{ permission: 'manage_dashboards', resources: [{ type: 'dashboards', id: a }] }]);
    expect((await patch(a, { description: 'ok' }, undefined, restricted)).status).toBe(200);
    // B is outside what the key can see: it does not exist for the key (404, not 403 naming it).
    expect((await patch(b, { description: 'no' }, undefined, restricted)).status).toBe(404);
    expect((await create({ name: 'new' }, undefined, restricted)).status).toBe(403);
    expect((await call(`/dashboards/${b}/lock`, { key: restricted, method: 'POST' })).status).toBe(404);
  });

  it('lists in an included dashboard group only the dashboards the caller may see', async () => {
    const admin = await makeUser(orgId, 'admin');
    const hidden = (await create({ name: 'Admin private' }, undefined, { session: admin.session })).json.data.id;
    const group = newId('dashboard_group');
    await db().insert(dashboardGroups).values({ id: group, organization_id: orgId, name: 'Mixed' });
    await db()
      .insert(dashboardGroupMembers)
      .values([
        { organization_id: orgId, dashboard_group_id: group, dashboard_id: org.sampleDashboard.id, position: 0 },
        { organization_id: orgId, dashboard_group_id: group, dashboard_id: hidden, position: 1 },
      ]);
    const analyst = await makeUser(orgId, 'analyst');
    const res = await call(`/dashboards/${org.sampleDashboard.id}?include=dashboard_groups`, { session: analyst.session });
    expect(res.status).toBe(200);
    expectJsonApiDocument(res.json);
    const g = res.json.included.find((r: any) => r.type === 'dashboard_groups' && r.id === group);
    expect(g.relationships.dashboards.data).toEqual([{ type: 'dashboards', id: org.sampleDashboard.id }]);
    const asAdmin = await call(`/dashboards/${org.sampleDashboard.id}?include=dashboard_groups`, { session: admin.session });
    const ga = asAdmin.json.included.find((r: any) => r.id === group);
    expect(ga.relationships.dashboards.data.map((d: any) => d.id)).toEqual([org.sampleDashboard.id, hidden]);
  });

  it('shows sharing links of a dashboard only to keys that manage that dashboard', async () => {
    const someOther = (await create({ name: 'Some other' })).json.data.id;
    const viewAllManageOne = await makeKey(orgId, [
      { permission: 'view_dashboards', resources: null },
      { permission: 'manage_dashboards', resources: [{ type: 'dashboards', id: someOther }] },
    ]);
    expect((await call(`/dashboards/${someOther}`, { key: viewAllManageOne })).json.data.relationships).toHaveProperty('dashboard_sharing_links');
    const res = await call(`/dashboards/${org.sampleDashboard.id}`, { key: viewAllManageOne });
    expect(res.json.data.relationships).not.toHaveProperty('dashboard_sharing_links');
    const full = await call(`/dashboards/${org.sampleDashboard.id}`, { key });
    expect(full.json.data.relationships).toHaveProperty('dashboard_sharing_links');
    // The row itself is untouched by reads.
    expect((await db().select().from(dashboards).where(eq(dashboards.id, org.sampleDashboard.id)))[0]!.name).toBe('Online shop overview');
  });
});
