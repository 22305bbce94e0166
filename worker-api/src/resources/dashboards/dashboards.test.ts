import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@cairn/core';
import { dashboards } from '@cairn/db';
import { call, db, makeKey, makeOrg, only, all } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let other: CreateOrganizationResult;
let key: string;

beforeAll(async () => {
  [org, other] = await Promise.all([makeOrg('dashboards'), makeOrg('other')]);
  key = await makeKey(org.organization.id);
});

describe('GET /dashboards', () => {
  it('lists the sample dashboard as a JSON:API document', async () => {
    const res = await call('/dashboards', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/vnd.api+json');
    expectJsonApiDocument(res.json);
    // A new organization gets the sample dashboard and the chart gallery beside it, ordered by name.
    expect(res.json.data.map((x: any) => x.attributes.name)).toEqual(['Chart gallery', 'Online shop overview']);
    const d = res.json.data.find((x: any) => x.id === org.sampleDashboard.id);
    expect(d).toMatchObject({ type: 'dashboards', id: org.sampleDashboard.id });
    expect(d.attributes).toMatchObject({
      name: 'Online shop overview',
      data_refresh_rate: 1440,
      color_scheme: 'scheme_6',
      default_page_width: 1600,
      is_locked: false,
    });
    expect(d.attributes).not.toHaveProperty('organization_id');
    expect(d.relationships.reports.data.length).toBeGreaterThanOrEqual(5);
    expect(d.links.self).toBe(`https://api.test/dashboards/${d.id}`);
    expect(res.json.meta.total).toBe(2);
  });

  it("never shows another organization's dashboards", async () => {
    const res = await call('/dashboards', { key });
    expect(res.json.data.map((d: any) => d.id)).not.toContain(other.sampleDashboard.id);
  });

  it('paginates with links and validates page parameters', async () => {
    const res = await call('/dashboards?page[size]=1', { key });
    expect(res.json.data).toHaveLength(1);
    expect(res.json.links.prev).toBeNull();
    expect(res.json.links.next).toContain('page%5Bnumber%5D=2');
    expect(res.json.links.self).toContain('page%5Bsize%5D=1');
    const second = await call('/dashboards?page[size]=1&page[number]=2', { key });
    expect(second.json.data[0].id).not.toBe(res.json.data[0].id);
    expect(second.json.links.next).toBeNull();
    expect(second.json.links.prev).toContain('page%5Bnumber%5D=1');
    const bad = await call('/dashboards?page[size]=5000', { key });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0]).toMatchObject({ code: 'invalid_query_parameter', source: { parameter: 'page[size]' } });
  });

  it('hides sharing links and users from a key without the permissions to see them', async () => {
    const viewer = await makeKey(org.organization.id, only('view_dashboards'));
    const res = await call('/dashboards', { key: viewer });
    const rel = res.json.data[0].relationships;
    expect(rel).not.toHaveProperty('dashboard_sharing_links');
    expect(rel).not.toHaveProperty('user');
    const full = await call('/dashboards', { key });
    expect(full.json.data[0].relationships).toHaveProperty('dashboard_sharing_links');
    expect(full.json.data[0].relationships.user.data).toEqual({ type: 'users', id: org.admin.id });
  });

  it('shows only the dashboards a restricted key names', async () => {
    const extra = newId('dashboard');
    await db().insert(dashboards).values({ id: extra, organization_id: org.organization.id, name: 'AAA extra', share_mode: 'all_users' });
    const restricted = await makeKey(org.organization.id, [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: extra }] }]);
    const res = await call('/dashboards', { key: restricted });
    expect(res.status).toBe(200);
    expect(res.json.data.map((d: any) => d.id)).toEqual([extra]);
    // A dashboard outside the key's restriction is invisible to it: 404, as if it did not exist.
    const denied = await call(`/dashboards/${org.sampleDashboard.id}`, { key: restricted });
    expect(denied.status).toBe(404);
    const full = await call('/dashboards', { key });
    const ids = full.json.data.map((d: any) => d.id);
    expect(ids[0]).toBe(extra);
    expect(ids).toHaveLength(3);
    expect(ids.at(-1)).toBe(org.sampleDashboard.id);
  });
});

describe('GET /dashboards/{id}', () => {
  it('includes reports and filters', async () => {
    const res = await call(`/dashboards/${org.sampleDashboard.id}?include=reports,filters`, { key });
    expect(res.status).toBe(200);
    expectJsonApiDocument(res.json);
    const types = res.json.included.map((r: any) => r.type);
    expect(types.filter((t: string) => t === 'reports').length).toBe(res.json.data.relationships.reports.data.length);
    expect(types).toContain('filters');
    const report = res.json.included.find((r: any) => r.type === 'reports');
    expect(report.attributes).toHaveProperty('sql_query');
    expect(report.attributes.row).toBeGreaterThanOrEqual(1);
    expect(report.relationships.dashboard.data.id).toBe(org.sampleDashboard.id);
    // Every sample report uses both filters, and the linkage names them.
    const filterIds = res.json.included
      .filter((r: any) => r.type === 'filters')
      .map((f: any) => f.id)
      .sort();
    expect(report.relationships.filters.data.map((f: any) => f.id).sort()).toEqual(filterIds);
    expect(report.relationships.sql_snippets.data).toEqual([]);
    expect(res.json.data.relationships.filters.data.map((f: any) => f.id).sort()).toEqual(filterIds);
    const charts = res.json.included.filter((r: any) => r.type === 'reports').map((r: any) => r.attributes.chart_configuration.type);
    for (const t of ['bar', 'line', 'pie', 'number', 'table']) expect(charts).toContain(t);
  });

  it('keeps write-only manual dropdown values away from API keys', async () => {
    const res = await call(`/dashboards/${org.sampleDashboard.id}?include=filters`, { key });
    for (const f of res.json.included) {
      expect(f.attributes).not.toHaveProperty('values');
      expect(f.attributes).not.toHaveProperty('value_names');
      expect(f).not.toHaveProperty('meta');
    }
  });

  it('answers 400 naming an unknown include', async () => {
    const res = await call(`/dashboards/${org.sampleDashboard.id}?include=reports,owner`, { key });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toMatchObject({ status: '400', code: 'invalid_include', source: { parameter: 'include' } });
    expect(res.json.errors[0].detail).toContain('"owner"');
  });

  it('refuses to include sharing links without Manage Dashboards', async () => {
    const viewer = await makeKey(org.organization.id, only('view_dashboards'));
    const res = await call(`/dashboards/${org.sampleDashboard.id}?include=dashboard_sharing_links`, { key: viewer });
    expect(res.status).toBe(403);
    expectJsonApiDocument(res.json);
  });

  it("answers 404 for another organization's dashboard and for an unknown id", async () => {
    for (const id of [other.sampleDashboard.id, 'dsh_nope']) {
      const res = await call(`/dashboards/${id}`, { key });
      expect(res.status).toBe(404);
      expect(res.json.errors[0].code).toBe('not_found');
    }
  });

  it('answers 403 to a key without View Dashboards', async () => {
    const k = await makeKey(org.organization.id, only('view_users'));
    const res = await call(`/dashboards/${org.sampleDashboard.id}`, { key: k });
    expect(res.status).toBe(403);
    expect(res.json.errors[0].code).toBe('forbidden');
  });

  it('gives the full key every include', async () => {
    const res = await call(
      `/dashboards/${org.sampleDashboard.id}?include=reports,filters,sql_snippets,dashboard_groups,dashboard_sharing_links,user,user_groups`,
      { key: await makeKey(org.organization.id, all()) },
    );
    expect(res.status).toBe(200);
    expect(res.json.included.some((r: any) => r.type === 'users' && r.id === org.admin.id)).toBe(true);
  });
});
