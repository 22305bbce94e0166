import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, dashboardUserGroups, datasources, reports, userGroupMembers, userGroups } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let other: CreateOrganizationResult;
let key: string;
let orgId: string;

const tile = (id: string, row: number, column: number, width: number, height: number) => ({ type: 'report', id, row, column, width, height });
const layout = (id: string, body: unknown, k: string = key) => call(`/dashboards/${id}/layout`, { key: k, method: 'PUT', body });
const share = (id: string, body: unknown, o: { key?: string; session?: string } = { key }) => call(`/dashboards/${id}/share`, { ...o, method: 'POST', body });
const pointers = (res: { status: number; json: any }) => {
  expect(res.status, JSON.stringify(res.json)).toBe(422);
  expectJsonApiDocument(res.json);
  return res.json.errors.map((e: any) => e.source?.pointer);
};
/** A fresh copy of the sample dashboard (six reports, two filters), so tests never share a dashboard. */
async function copyOfSample(k: string = key) {
  const res = await call(`/dashboards/${org.sampleDashboard.id}/duplicate`, { key: k, method: 'POST' });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string; attributes: any; relationships: any };
}

beforeAll(async () => {
  [org, other] = await Promise.all([makeOrg('dash-actions'), makeOrg('dash-actions-other')]);
  orgId = org.organization.id;
  key = await makeKey(orgId);
});

describe('PUT /dashboards/{id}/layout', () => {
  it('stores a valid layout, shows it on the dashboard and its reports, and keeps floating_enabled when left out', async () => {
    const d = await copyOfSample();
    const [a, b, c] = d.relationships.reports.data.map((r: any) => r.id);
    const res = await layout(d.id, { layout: [tile(a, 1, 1, 6, 3), tile(b, 1, 7, 6, 3), tile(c, 4, 1, 12, 2)] });
    expect(res.status).toBe(200);
    expectJsonApiDocument(res.json);
    expect(res.json.data.attributes.layout).toEqual([tile(a, 1, 1, 6, 3), tile(b, 1, 7, 6, 3), tile(c, 4, 1, 12, 2)]);
    expect(res.json.data.attributes.floating_enabled).toBe(false);
    const withReports = await call(`/dashboards/${d.id}?include=reports`, { key });
    const rb = withReports.json.included.find((r: any) => r.id === b);
    expect(rb.attributes).toMatchObject({ row: 1, column: 7, width: 6, height: 3 });
    // Overlapping tiles are fine once floating is on, and floating stays on when the next call leaves it out.
    expect((await layout(d.id, { layout: [tile(a, 1, 1, 6, 3), tile(b, 2, 3, 6, 3)], floating_enabled: true })).status).toBe(200);
    const again = await layout(d.id, { layout: [tile(a, 1, 1, 6, 3), tile(b, 1, 1, 6, 3)] });
    expect(again.status).toBe(200);
    expect(again.json.data.attributes.floating_enabled).toBe(true);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.resource_id, d.id), eq(auditLog.action, 'layout')));
    expect(log).toHaveLength(3);
  });

  it('checks every grid rule with a pointer to the tile', async () => {
    const d = await copyOfSample();
    const [a, b] = d.relationships.reports.data.map((r: any) => r.id);
    const foreign = org.sampleDashboard.reports[0]!.id;
    const cases: [unknown, string][] = [
      [[tile(a, 1, 0, 4, 2)], '/layout/0/column'],
      [[tile(a, 1, 13, 1, 2)], '/layout/0/column'],
      [[tile(a, 1, 1, 0, 2)], '/layout/0/width'],
      [[tile(a, 1, 1, 13, 2)], '/layout/0/width'],
      [[tile(a, 1, 8, 6, 2)], '/layout/0/width'],
      [[tile(a, 0, 1, 4, 2)], '/layout/0/row'],
      [[tile(a, 1, 1, 4, 0)], '/layout/0/height'],
      [[tile(a, 1.5, 1, 4, 2)], '/layout/0/row'],
      [[{ ...tile(a, 1, 1, 4, 2), type: 'chart' }], '/layout/0/type'],
      [[{ ...tile(a, 1, 1, 4, 2), colour: 'red' }], '/layout/0'],
      [[{ type: 'report', id: a, row: 1, column: 1, width: 4 }], '/layout/0/height'],
      [[tile(a, 1, 1, 4, 2), tile('rep_nope', 5, 1, 4, 2)], '/layout/1/id'],
      [[tile(foreign, 1, 1, 4, 2)], '/layout/0/id'],
      [[tile(a, 1, 1, 4, 2), tile(a, 5, 1, 4, 2)], '/layout/1/id'],
      [[tile(a, 1, 1, 6, 4), tile(b, 4, 6, 4, 2)], '/layout/1'],
    ];
    for (const [tiles, pointer] of cases) {
      expect(pointers(await layout(d.id, { layout: tiles })), JSON.stringify(tiles)).toContain(pointer);
    }
    // Several problems come back together; nothing was stored.
    const many = await layout(d.id, { layout: [tile(a, 1, 10, 4, 2), tile('rep_x', 1, 1, 2, 2), tile(b, 1, 1, 4, 2)] });
    expect(pointers(many)).toEqual(expect.arrayContaining(['/layout/0/width', '/layout/1/id', '/layout/2']));
    expect((await call(`/dashboards/${d.id}`, { key })).json.data.attributes.layout).toEqual(d.attributes.layout);
    // Touching edges is not overlapping.
    expect((await layout(d.id, { layout: [tile(a, 1, 1, 6, 4), tile(b, 5, 7, 6, 2)] })).status).toBe(200);
    expect(pointers(await layout(d.id, {}))).toContain('/layout');
    expect(pointers(await layout(d.id, { layout: [], floating_enabled: 'yes' }))).toContain('/floating_enabled');
    expect((await call(`/dashboards/${d.id}/layout`, { key, method: 'PUT', rawBody: '{"layout":', contentType: 'application/json' })).status).toBe(400);
    expect((await call(`/dashboards/${d.id}/layout`, { key, method: 'PUT', rawBody: '{"layout":[]}', contentType: 'text/plain' })).status).toBe(415);
  });

  it('needs Manage Dashboards and answers 404 for another organization', async () => {
    const viewer = await makeKey(orgId, only('view_dashboards'));
    expect((await layout(org.sampleDashboard.id, { layout: [] }, viewer)).status).toBe(403);
    expect((await layout(other.sampleDashboard.id, { layout: [] })).status).toBe(404);
  });
});

describe('POST /dashboards/{id}/share', () => {
  it('moves between the share modes and controls who sees the dashboard', async () => {
    const admin = await makeUser(orgId, 'admin');
    const analyst = await makeUser(orgId, 'analyst');
    const viewer = await makeUser(orgId, 'viewer');
    const member = await makeUser(orgId, 'viewer');
    const made = await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'To share' } }, { session: admin.session });
    const id = made.json.data.id;
    const sees = async (u: { session: string }) => (await call(`/dashboards/${id}`, { session: u.session })).status === 200;
    expect([await sees(analyst), await sees(viewer), await sees(member)]).toEqual([false, false, false]);

    const all = await share(id, { share_mode: 'all_users' });
    expect(all.status).toBe(200);
    expectJsonApiDocument(all.json);
    expect(all.json.data.attributes.share_mode).toBe('all_users');
    expect([await sees(analyst), await sees(viewer)]).toEqual([true, true]);

    await share(id, { share_mode: 'all_analysts' });
    expect([await sees(analyst), await sees(viewer)]).toEqual([true, false]);

    const group = newId('user_group');
    await db().insert(userGroups).values({ id: group, organization_id: orgId, name: 'Readers' });
    await db().insert(userGroupMembers).values({ organization_id: orgId, user_group_id: group, user_id: member.id });
    const custom = await share(id, { share_mode: 'custom', user_group_ids: [group], notify_new_users: true, include_thumbnail: false });
    expect(custom.status).toBe(200);
    expect(custom.json.data.attributes.share_mode).toBe('custom');
    expect(custom.json.data.relationships.user_groups.data).toEqual([{ type: 'user_groups', id: group }]);
    expect([await sees(analyst), await sees(viewer), await sees(member)]).toEqual([false, false, true]);

    // The built-in aliases name the organization's built-in groups.
    const aliased = await share(id, { share_mode: 'custom', user_group_ids: ['all_analysts', group] });
    const builtIn = await db()
      .select()
      .from(userGroups)
      .where(and(eq(userGroups.organization_id, orgId), eq(userGroups.built_in_behavior, 'all_analysts')));
    expect(aliased.json.data.relationships.user_groups.data.map((g: any) => g.id).sort()).toEqual([builtIn[0]!.id, group].sort());
    expect([await sees(analyst), await sees(viewer), await sees(member)]).toEqual([true, false, true]);

    const none = await share(id, { share_mode: 'none' });
    expect(none.json.data.relationships.user_groups.data).toEqual([]);
    expect(await db().select().from(dashboardUserGroups).where(eq(dashboardUserGroups.dashboard_id, id))).toEqual([]);
    expect([await sees(analyst), await sees(viewer), await sees(member), await sees(admin)]).toEqual([false, false, false, true]);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.resource_id, id), eq(auditLog.action, 'share')));
    expect(log).toHaveLength(5);
    expect(log.find((l) => (l.details as any).share_mode === 'custom' && (l.details as any).notify_new_users)).toBeDefined();
  });

  it('validates the share body with pointers', async () => {
    const id = (await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Share rules' } }, key)).json.data.id;
    const otherGroup = (await db().select().from(userGroups).where(eq(userGroups.organization_id, other.organization.id)))[0]!.id;
    const cases: [unknown, string][] = [
      [{ share_mode: 'custom' }, '/user_group_ids'],
      [{ share_mode: 'custom', user_group_ids: [] }, '/user_group_ids'],
      [{ share_mode: 'custom', user_group_ids: ['all_users', 'ugr_nope'] }, '/user_group_ids/1'],
      [{ share_mode: 'custom', user_group_ids: [otherGroup] }, '/user_group_ids/0'],
      [{ share_mode: 'all_users', user_group_ids: ['all_users'] }, '/user_group_ids'],
      [{ share_mode: 'everyone' }, '/share_mode'],
      [{}, '/share_mode'],
      [{ share_mode: 'none', notify_new_users: 'yes' }, '/notify_new_users'],
      [{ share_mode: 'none', include_thumbnail: 1 }, '/include_thumbnail'],
      [{ share_mode: 'none', extra: true }, ''],
    ];
    for (const [body, pointer] of cases) expect(pointers(await share(id, body)), JSON.stringify(body)).toContain(pointer);
    expect((await call(`/dashboards/${id}`, { key })).json.data.attributes.share_mode).toBe('none');
    expect((await share(other.sampleDashboard.id, { share_mode: 'none' })).status).toBe(404);
    const viewer = await makeUser(orgId, 'viewer');
    expect((await share(org.sampleDashboard.id, { share_mode: 'none' }, { session: viewer.session })).status).toBe(403);
  });
});

describe('POST /dashboards/{id}/duplicate', () => {
  it('copies reports with new ids, keeps filters and snippets, and points the layout at the copies', async () => {
    const source = await call(`/dashboards/${org.sampleDashboard.id}?include=reports`, { key });
    const analyst = await makeUser(orgId, 'analyst');
    const res = await call(`/dashboards/${org.sampleDashboard.id}/duplicate`, { session: analyst.session, method: 'POST' });
    expect(res.status).toBe(201);
    expectJsonApiDocument(res.json);
    const copy = res.json.data;
    expect(copy.id).not.toBe(org.sampleDashboard.id);
    expect(copy.attributes).toMatchObject({
      name: 'Online shop overview (copy)',
      share_mode: 'none',
      is_locked: false,
      color_scheme: source.json.data.attributes.color_scheme,
    });
    expect(copy.relationships.user.data).toEqual({ type: 'users', id: analyst.id });
    const oldIds = source.json.data.relationships.reports.data.map((r: any) => r.id);
    const newIds = copy.relationships.reports.data.map((r: any) => r.id);
    expect(newIds).toHaveLength(oldIds.length);
    expect(newIds.some((id: string) => oldIds.includes(id))).toBe(false);
    expect(copy.relationships.filters.data).toEqual(source.json.data.relationships.filters.data);
    // Same tiles, now naming the copies (reports are copied in creation order).
    const byOld = new Map<string, string>();
    const copied = await call(`/dashboards/${copy.id}?include=reports`, { session: analyst.session });
    for (const r of source.json.included) byOld.set(r.attributes.name, r.id);
    const nameOfNew = new Map(copied.json.included.map((r: any) => [r.id, r.attributes.name]));
    expect(copy.attributes.layout.map((t: any) => ({ ...t, id: byOld.get(nameOfNew.get(t.id) as string) }))).toEqual(source.json.data.attributes.layout);
    for (const r of copied.json.included) {
      const orig = source.json.included.find((o: any) => o.attributes.name === r.attributes.name);
      expect(r.attributes.sql_query).toBe(orig.attributes.sql_query);
      expect(r.relationships.filters.data.map((f: any) => f.id).sort()).toEqual(orig.relationships.filters.data.map((f: any) => f.id).sort());
      expect(r.relationships.datasource.data).toEqual(orig.relationships.datasource.data);
    }
    // The original is untouched.
    const again = await call(`/dashboards/${org.sampleDashboard.id}`, { key });
    expect(again.json.data.relationships.reports.data.map((r: any) => r.id)).toEqual(oldIds);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.resource_id, copy.id), eq(auditLog.action, 'create')));
    expect(log[0]!.details).toMatchObject({ duplicate_of: org.sampleDashboard.id });
  });

  it('copies a locked dashboard as an unlocked one, and keeps within the name length', async () => {
    const long = 'L'.repeat(200);
    const id = (await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: long, is_locked: true } }, key)).json.data.id;
    const res = await call(`/dashboards/${id}/duplicate`, { key, method: 'POST' });
    expect(res.status).toBe(201);
    expect(res.json.data.attributes.is_locked).toBe(false);
    expect(res.json.data.attributes.name).toHaveLength(200);
    expect(res.json.data.attributes.name.endsWith(' (copy)')).toBe(true);
  });

  it('needs Manage Dashboards (unrestricted), and answers 404 for another organization', async () => {
    const viewer = await makeUser(orgId, 'viewer');
    expect((await call(`/dashboards/${org.sampleDashboard.id}/duplicate`, { session: viewer.session, method: 'POST' })).status).toBe(403);
    const restricted = await makeKey(orgId, [{ permission: 'manage_dashboards', resources: [{ type: 'dashboards', id: org.sampleDashboard.id }] }]);
    expect((await call(`/dashboards/${org.sampleDashboard.id}/duplicate`, { key: restricted, method: 'POST' })).status).toBe(403);
    expect((await call(`/dashboards/${other.sampleDashboard.id}/duplicate`, { key, method: 'POST' })).status).toBe(404);
    // A key limited to other datasources cannot copy reports that run on this one.
    const elsewhere = newId('datasource');
    await db().insert(datasources).values({ id: elsewhere, organization_id: orgId, name: 'Warehouse', database_type: 'postgres', connection_mode: 'direct' });
    // (A grant restricted to datasources names no dashboard, so the key cannot even see this one: 404.)
    const limited = await makeKey(orgId, [{ permission: 'manage_dashboards', resources: [{ type: 'datasources', id: elsewhere }] }]);
    expect((await call(`/dashboards/${org.sampleDashboard.id}/duplicate`, { key: limited, method: 'POST' })).status).toBe(404);
  });
});

describe('GET /dashboards/{id} after actions', () => {
  it('still includes the copied reports in one document', async () => {
    const d = await copyOfSample();
    const res = await call(`/dashboards/${d.id}?include=reports,filters`, { key });
    expect(res.status).toBe(200);
    expectJsonApiDocument(res.json);
    const reportRows = await db().select().from(reports).where(eq(reports.dashboard_id, d.id));
    expect(res.json.included.filter((r: any) => r.type === 'reports')).toHaveLength(reportRows.length);
  });
});
