import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { auditLog, dashboardFilters, datasources, filters, reportFilters, sqlSnippets, sqlSnippetUses } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let other: CreateOrganizationResult;
let key: string;
let otherKey: string;
let orgId: string;
let dashboardId: string;
let reportIds: string[];
const ids = { outer: '', inner: '', segment: '' };

const backup = async (id: string, k: string = key) => call(`/dashboards/${id}/backup`, { key: k, method: 'POST' });
const restore = (body: unknown, k: string = key) => call('/dashboards/restore', { key: k, method: 'POST', body });
const pointers = (res: { status: number; json: any }) => {
  expect(res.status, JSON.stringify(res.json)).toBe(422);
  expectJsonApiDocument(res.json);
  return res.json.errors.map((e: any) => e.source?.pointer);
};
/** A backup with its ids and times left out, to compare two backups of equal dashboards. */
function shape(b: any) {
  return {
    dashboard: {
      ...b.dashboard,
      layout: b.dashboard.layout.map(({ id: _, ...t }: any) => t),
      filter_ids: b.dashboard.filter_ids.length,
      sql_snippet_ids: b.dashboard.sql_snippet_ids.length,
    },
    reports: b.reports.map(({ id: _, filter_ids, sql_snippet_ids, ...r }: any) => ({ ...r, filters: filter_ids.length, snippets: sql_snippet_ids.length })),
    filters: b.filters.map((f: any) => f.variable_name).sort(),
    sql_snippets: b.sql_snippets.map((s: any) => s.name).sort(),
  };
}

beforeAll(async () => {
  [org, other] = await Promise.all([makeOrg('dash-backup'), makeOrg('dash-backup-other')]);
  orgId = org.organization.id;
  [key, otherKey] = await Promise.all([makeKey(orgId), makeKey(other.organization.id)]);
  const copy = await call(`/dashboards/${org.sampleDashboard.id}/duplicate`, { key, method: 'POST' });
  dashboardId = copy.json.data.id;
  reportIds = copy.json.data.relationships.reports.data.map((r: any) => r.id);
  // Nested snippets (outer uses inner), used by a report and by the dashboard; a manual dropdown with
  // a parent filter, used by the dashboard and a report.
  ids.outer = newId('sql_snippet');
  ids.inner = newId('sql_snippet');
  ids.segment = newId('filter');
  const ds = org.sampleDatasource.id;
  await db()
    .insert(sqlSnippets)
    .values([
      { id: ids.inner, organization_id: orgId, datasource_id: ds, name: 'backup_inner', text: "status = 'paid'" },
      { id: ids.outer, organization_id: orgId, datasource_id: ds, name: 'backup_outer', text: '[backup_inner] AND {{min}} > 0', params: ['min'] },
    ]);
  await db()
    .insert(sqlSnippetUses)
    .values([
      { organization_id: orgId, owner_type: 'sql_snippet', owner_id: ids.outer, sql_snippet_id: ids.inner },
      { organization_id: orgId, owner_type: 'report', owner_id: reportIds[0]!, sql_snippet_id: ids.outer },
      { organization_id: orgId, owner_type: 'dashboard', owner_id: dashboardId, sql_snippet_id: ids.inner },
    ]);
  const country = org.sampleDashboard.filters.find((f) => f.variable_name === 'country')!.id;
  await db()
    .insert(filters)
    .values({
      id: ids.segment,
      organization_id: orgId,
      variable_name: 'backup_segment',
      display_name: 'Segment',
      control_type: 'dropdown_manual',
      value_type: 'TEXT',
      values: ['b2b', 'b2c'],
      value_names: ['Business', 'Consumer'],
      parent_filter_id: country,
    });
  await db().insert(dashboardFilters).values({ organization_id: orgId, dashboard_id: dashboardId, filter_id: ids.segment, position: 5 });
  await db().insert(reportFilters).values({ organization_id: orgId, report_id: reportIds[1]!, filter_id: ids.segment });
});

describe('POST /dashboards/{id}/backup', () => {
  it('holds the dashboard, its reports, filters (with parents and manual options), nested snippets and datasources', async () => {
    const res = await backup(dashboardId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const b = res.json;
    expect(b).toMatchObject({ format: 'cairn.dashboard-backup', version: 1, source: { dashboard_id: dashboardId, api_version: 'v2024-06-01' } });
    expect(b.dashboard.name).toBe('Online shop overview (copy)');
    expect(b.dashboard.layout).toHaveLength(reportIds.length);
    expect(b.reports.map((r: any) => r.id).sort()).toEqual([...reportIds].sort());
    expect(b.reports.find((r: any) => r.id === reportIds[0]).sql_snippet_ids).toEqual([ids.outer]);
    expect(b.reports.find((r: any) => r.id === reportIds[1]).filter_ids).toContain(ids.segment);
    expect(b.dashboard.sql_snippet_ids).toEqual([ids.inner]);
    expect(b.dashboard.filter_ids).toHaveLength(3);
    expect(b.dashboard.filter_ids[2]).toBe(ids.segment);
    const segment = b.filters.find((f: any) => f.id === ids.segment);
    expect(segment).toMatchObject({ values: ['b2b', 'b2c'], value_names: ['Business', 'Consumer'], control_type: 'dropdown_manual' });
    expect(b.filters.map((f: any) => f.variable_name).sort()).toEqual(['backup_segment', 'country', 'order_date']);
    expect(b.sql_snippets.map((s: any) => s.name).sort()).toEqual(['backup_inner', 'backup_outer']);
    expect(b.sql_snippets.find((s: any) => s.id === ids.outer)).toMatchObject({ sql_snippet_ids: [ids.inner], params: ['min'] });
    expect(b.datasources).toEqual([{ id: org.sampleDatasource.id, name: 'Sample data', database_type: 'postgres' }]);
    expect(JSON.stringify(b)).not.toMatch(/password|secret/i);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.resource_id, dashboardId), eq(auditLog.action, 'backup')));
    expect(log.length).toBeGreaterThanOrEqual(1);
  });

  it('needs Manage Dashboards on the dashboard and answers 404 elsewhere', async () => {
    expect((await backup(dashboardId, await makeKey(orgId, only('view_dashboards')))).status).toBe(403);
    const viewer = await makeUser(orgId, 'viewer');
    expect((await call(`/dashboards/${org.sampleDashboard.id}/backup`, { session: viewer.session, method: 'POST' })).status).toBe(403);
    const res = await backup(other.sampleDashboard.id);
    expect(res.status).toBe(404);
    expectJsonApiDocument(res.json);
  });
});

describe('POST /dashboards/restore', () => {
  it('recreates the dashboard in the same organization with new report ids, reusing its filters and snippets', async () => {
    const b = (await backup(dashboardId)).json;
    const res = await restore(b);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expectJsonApiDocument(res.json);
    const d = res.json.data;
    expect(d.id).not.toBe(dashboardId);
    expect(d.attributes.name).toBe(b.dashboard.name);
    expect(d.attributes.share_mode).toBe('none');
    const newReports = d.relationships.reports.data.map((r: any) => r.id);
    expect(newReports).toHaveLength(reportIds.length);
    expect(newReports.some((r: string) => reportIds.includes(r))).toBe(false);
    expect(d.relationships.filters.data.map((f: any) => f.id)).toEqual(b.dashboard.filter_ids);
    expect(d.relationships.sql_snippets.data).toEqual([{ type: 'sql_snippets', id: ids.inner }]);
    expect(d.attributes.layout.every((t: any) => newReports.includes(t.id))).toBe(true);
    // Nothing was created beside the dashboard and its reports.
    expect(
      await db()
        .select()
        .from(sqlSnippets)
        .where(and(eq(sqlSnippets.organization_id, orgId), eq(sqlSnippets.name, 'backup_outer'))),
    ).toHaveLength(1);
    expect(
      await db()
        .select()
        .from(filters)
        .where(and(eq(filters.organization_id, orgId), eq(filters.variable_name, 'backup_segment'))),
    ).toHaveLength(1);
    // A backup of the restored dashboard describes the same dashboard.
    const again = (await backup(d.id)).json;
    expect(shape(again)).toEqual(shape(b));
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.resource_id, d.id), eq(auditLog.action, 'restore')));
    expect(log[0]!.details).toMatchObject({ source_dashboard_id: dashboardId, filters_created: [], sql_snippets_created: [] });
  });

  it('refuses datasources the organization does not have, naming them, and restores once they are mapped', async () => {
    const b = (await backup(dashboardId)).json;
    const refused = await restore(b, otherKey);
    expect(pointers(refused)).toEqual(['/datasources/0/id']);
    expect(refused.json.errors[0].detail).toContain(org.sampleDatasource.id);
    expect(refused.json.errors[0].detail).toContain('Sample data');

    const mapped = JSON.parse(JSON.stringify(b).split(org.sampleDatasource.id).join(other.sampleDatasource.id));
    const res = await restore(mapped, otherKey);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const d = res.json.data;
    const otherOrg = other.organization.id;
    // The sample filters of that organization have the same variable names and types: reused. The segment filter is new.
    const otherSample = other.sampleDashboard.filters.map((f) => f.id).sort();
    const restoredFilters = d.relationships.filters.data.map((f: any) => f.id);
    expect(restoredFilters.slice(0, 2).sort()).toEqual(otherSample);
    const [segment] = await db().select().from(filters).where(eq(filters.id, restoredFilters[2]));
    expect(segment).toMatchObject({
      organization_id: otherOrg,
      variable_name: 'backup_segment',
      values: ['b2b', 'b2c'],
      value_names: ['Business', 'Consumer'],
    });
    expect(segment!.id).not.toBe(ids.segment);
    expect(otherSample).toContain(segment!.parent_filter_id);
    // Snippets were created there, with the nesting mapped to the new ids.
    const snips = await db()
      .select()
      .from(sqlSnippets)
      .where(and(eq(sqlSnippets.organization_id, otherOrg), inArray(sqlSnippets.name, ['backup_inner', 'backup_outer'])));
    expect(snips).toHaveLength(2);
    const outer = snips.find((s) => s.name === 'backup_outer')!;
    const inner = snips.find((s) => s.name === 'backup_inner')!;
    expect([outer.id, inner.id]).not.toContain(ids.outer);
    expect(outer.datasource_id).toBe(other.sampleDatasource.id);
    const nested = await db()
      .select()
      .from(sqlSnippetUses)
      .where(and(eq(sqlSnippetUses.owner_type, 'sql_snippet'), eq(sqlSnippetUses.owner_id, outer.id)));
    expect(nested.map((u) => u.sql_snippet_id)).toEqual([inner.id]);
    expect(d.relationships.sql_snippets.data).toEqual([{ type: 'sql_snippets', id: inner.id }]);
    const withReports = await call(`/dashboards/${d.id}?include=reports`, { key: otherKey });
    const first = withReports.json.included.find((r: any) => r.relationships.sql_snippets.data.length);
    expect(first.relationships.sql_snippets.data).toEqual([{ type: 'sql_snippets', id: outer.id }]);
    expect(withReports.json.included.every((r: any) => r.relationships.datasource.data.id === other.sampleDatasource.id)).toBe(true);
    // A second restore there reuses what the first created.
    const second = await restore(mapped, otherKey);
    expect(second.status).toBe(201);
    expect(
      await db()
        .select()
        .from(sqlSnippets)
        .where(and(eq(sqlSnippets.organization_id, otherOrg), eq(sqlSnippets.name, 'backup_outer'))),
    ).toHaveLength(1);
    expect(
      await db()
        .select()
        .from(filters)
        .where(and(eq(filters.organization_id, otherOrg), eq(filters.variable_name, 'backup_segment'))),
    ).toHaveLength(1);
  });

  it('checks the format, the version and that the parts of a backup refer to each other', async () => {
    const b = (await backup(dashboardId)).json;
    const edit = (f: (x: any) => void) => {
      const copy = JSON.parse(JSON.stringify(b));
      f(copy);
      return copy;
    };
    const cases: [unknown, string][] = [
      [
        edit((x) => {
          x.format = 'other';
        }),
        '/format',
      ],
      [
        edit((x) => {
          x.version = 2;
        }),
        '/version',
      ],
      [
        edit((x) => {
          delete x.reports;
        }),
        '/reports',
      ],
      [
        edit((x) => {
          x.dashboard.layout[0].id = 'rep_missing';
        }),
        '/dashboard/layout/0/id',
      ],
      [
        edit((x) => {
          x.dashboard.layout[0].column = 13;
        }),
        '/dashboard/layout/0/column',
      ],
      [
        edit((x) => {
          x.reports[0].filter_ids = ['flt_missing'];
        }),
        '/reports/0/filter_ids/0',
      ],
      [
        edit((x) => {
          x.reports[0].datasource_id = 'dsr_unlisted';
        }),
        '/reports/0/datasource_id',
      ],
      [
        edit((x) => {
          x.reports[1].id = x.reports[0].id;
        }),
        '/reports/1/id',
      ],
      [
        edit((x) => {
          x.reports[0].sql_query = '';
        }),
        '/reports/0/sql_query',
      ],
      [
        edit((x) => {
          x.filters[0].variable_name = 'bad name';
        }),
        '/filters/0/variable_name',
      ],
      [
        edit((x) => {
          x.filters[0].control_type = 'slider';
        }),
        '/filters/0/control_type',
      ],
      [
        edit((x) => {
          x.sql_snippets[0].sql_snippet_ids = ['snp_missing'];
        }),
        '/sql_snippets/0/sql_snippet_ids/0',
      ],
      [
        edit((x) => {
          x.dashboard.color_scheme = 'scheme_12';
        }),
        '/dashboard/color_scheme',
      ],
      [
        edit((x) => {
          x.dashboard.time_zone_config = { type: 'fixed' };
        }),
        '/dashboard/time_zone_config/fixed_time_zone',
      ],
      [
        edit((x) => {
          x.extra = 1;
        }),
        '',
      ],
    ];
    for (const [body, pointer] of cases) expect(pointers(await restore(body)), pointer).toContain(pointer);
    expect((await call('/dashboards/restore', { key, method: 'POST', rawBody: '{', contentType: 'application/json' })).status).toBe(400);
  });

  it('needs Manage Dashboards without a dashboard restriction, and access to the datasources', async () => {
    const b = (await backup(dashboardId)).json;
    expect((await restore(b, await makeKey(orgId, only('view_dashboards')))).status).toBe(403);
    const restricted = await makeKey(orgId, [{ permission: 'manage_dashboards', resources: [{ type: 'dashboards', id: dashboardId }] }]);
    expect((await restore(b, restricted)).status).toBe(403);
    const elsewhere = newId('datasource');
    await db().insert(datasources).values({ id: elsewhere, organization_id: orgId, name: 'Elsewhere', database_type: 'mysql', connection_mode: 'direct' });
    const limited = await makeKey(orgId, [{ permission: 'manage_dashboards', resources: [{ type: 'datasources', id: elsewhere }] }]);
    const denied = await restore(b, limited);
    expect(denied.status).toBe(403);
    // Restoring makes a new dashboard: organization-wide, so no restricted grant reaches it.
    expect(denied.json.errors[0].detail).toContain('whole organization');
    const analyst = await makeUser(orgId, 'analyst');
    const res = await call('/dashboards/restore', { session: analyst.session, method: 'POST', body: b });
    expect(res.status).toBe(201);
    expect(res.json.data.relationships.user.data).toEqual({ type: 'users', id: analyst.id });
  });
});
