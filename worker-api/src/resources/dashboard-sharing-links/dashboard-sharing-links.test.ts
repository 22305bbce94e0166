import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, dashboardSharingLinks } from '@cairn/db';
import { verifyPassword } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let other: CreateOrganizationResult;
let key: string;
let orgId: string;

const link = (attributes: Record<string, unknown>, dashboard: string | null = org.sampleDashboard.id) => ({
  type: 'dashboard_sharing_links',
  attributes,
  ...(dashboard ? { relationships: { dashboard: { data: { type: 'dashboards', id: dashboard } } } } : {}),
});
const create = async (attributes: Record<string, unknown>, dashboard?: string | null, k: string | { session: string } = key) => {
  const res = await jsonApi('/dashboard_sharing_links', 'POST', link(attributes, dashboard === undefined ? org.sampleDashboard.id : dashboard), k);
  expectJsonApiDocument(res.json);
  return res;
};
const patch = async (id: string, attributes: Record<string, unknown>, k: string = key) => {
  const res = await jsonApi(`/dashboard_sharing_links/${id}`, 'PATCH', { type: 'dashboard_sharing_links', id, attributes }, k);
  expectJsonApiDocument(res.json);
  return res;
};
const pointers = (res: { status: number; json: any }) => {
  expect(res.status, JSON.stringify(res.json)).toBe(422);
  return res.json.errors.map((e: any) => e.source?.pointer);
};
const stored = async (id: string) => (await db().select().from(dashboardSharingLinks).where(eq(dashboardSharingLinks.id, id)))[0]!;

beforeAll(async () => {
  [org, other] = await Promise.all([makeOrg('links'), makeOrg('links-other')]);
  orgId = org.organization.id;
  key = await makeKey(orgId);
});

describe('creating sharing links', () => {
  it('creates with defaults and an unguessable, url-safe, read-only token', async () => {
    const res = await create({ name: 'Public' });
    expect(res.status).toBe(201);
    const l = res.json.data;
    expect(l.type).toBe('dashboard_sharing_links');
    expect(l.attributes).toEqual({
      name: 'Public',
      description: null,
      token: expect.any(String),
      toolbar_enabled: true,
      parameters_enabled: false,
      filter_bar_enabled: false,
      refresh_enabled: false,
      data_download_enabled: true,
      unlimited_csv_export_enabled: false,
      sharing_secret_required: false,
      sharing_password_set: false,
      color_mode: 'light',
      ip_whitelist: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(l.relationships.dashboard.data).toEqual({ type: 'dashboards', id: org.sampleDashboard.id });
    // At least 128 bits: 22 or more base64url characters.
    expect(l.attributes.token).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    const tokens = new Set([l.attributes.token]);
    for (let i = 0; i < 5; i++) tokens.add((await create({ name: `n${i}` })).json.data.attributes.token);
    expect(tokens.size).toBe(6);
    const ro = await create({ name: 'x', token: 'mine' });
    expect(pointers(ro)).toEqual(['/data/attributes/token']);
    expect(ro.json.errors[0].code).toBe('read_only_attribute');
    const roPatch = await patch(l.id, { token: 'mine' });
    expect(pointers(roPatch)).toEqual(['/data/attributes/token']);
    expect((await stored(l.id)).token).toBe(l.attributes.token);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.resource_id, l.id), eq(auditLog.action, 'create')));
    expect(log).toHaveLength(1);
  });

  it('stores every attribute and keeps the password write-only and hashed', async () => {
    const attributes = {
      name: 'Everything',
      description: 'd',
      toolbar_enabled: true,
      parameters_enabled: true,
      filter_bar_enabled: true,
      refresh_enabled: true,
      data_download_enabled: false,
      unlimited_csv_export_enabled: true,
      sharing_secret_required: true,
      color_mode: 'dark',
      ip_whitelist: '203.0.113.7, 198.51.100.0/24,2001:db8::/32 , ::1, ::ffff:192.0.2.1',
    };
    const res = await create({ ...attributes, sharing_password: 'open sesame' });
    expect(res.status).toBe(201);
    const a = res.json.data.attributes;
    expect(a).toMatchObject({ ...attributes, ip_whitelist: '203.0.113.7, 198.51.100.0/24, 2001:db8::/32, ::1, ::ffff:192.0.2.1', sharing_password_set: true });
    expect(a).not.toHaveProperty('sharing_password');
    expect(JSON.stringify(res.json)).not.toContain('open sesame');
    const row = await stored(res.json.data.id);
    expect(row.sharing_password_hash).not.toContain('open sesame');
    expect(await verifyPassword('open sesame', row.sharing_password_hash!)).toBe(true);
    const log = await db().select().from(auditLog).where(eq(auditLog.resource_id, res.json.data.id));
    expect(JSON.stringify(log)).not.toContain('open sesame');
    // Included with the dashboard, the link shows the same attributes: no password there either.
    const dash = await call(`/dashboards/${org.sampleDashboard.id}?include=dashboard_sharing_links`, { key });
    const inc = dash.json.included.find((r: any) => r.id === res.json.data.id);
    expect(inc.attributes).toMatchObject({ sharing_password_set: true });
    expect(inc.attributes).not.toHaveProperty('sharing_password');
    const cleared = await patch(res.json.data.id, { sharing_password: null });
    expect(cleared.json.data.attributes.sharing_password_set).toBe(false);
    expect((await stored(res.json.data.id)).sharing_password_hash).toBeNull();
    const reset = await patch(res.json.data.id, { sharing_password: 'another one' });
    expect(await verifyPassword('another one', (await stored(res.json.data.id)).sharing_password_hash!)).toBe(true);
    expect(reset.json.data.attributes.sharing_password_set).toBe(true);
  });

  it('validates attributes and the dashboard relationship with pointers', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, '/data/attributes/name'],
      [{ name: '' }, '/data/attributes/name'],
      [{ name: 'x', color_mode: 'blue' }, '/data/attributes/color_mode'],
      [{ name: 'x', toolbar_enabled: 'yes' }, '/data/attributes/toolbar_enabled'],
      [{ name: 'x', sharing_password: '' }, '/data/attributes/sharing_password'],
      [{ name: 'x', sharing_password: 42 }, '/data/attributes/sharing_password'],
      [{ name: 'x', sharing_password_set: true }, '/data/attributes/sharing_password_set'],
      [{ name: 'x', created_at: '2024-01-01' }, '/data/attributes/created_at'],
      [{ name: 'x', url: 'https://x' }, '/data/attributes/url'],
    ];
    for (const [attrs, pointer] of cases) expect(pointers(await create(attrs)), JSON.stringify(attrs)).toContain(pointer);
    expect(pointers(await create({ name: 'x' }, null))).toEqual(['/data/relationships/dashboard']);
    const foreign = await create({ name: 'x' }, other.sampleDashboard.id);
    expect(pointers(foreign)).toEqual(['/data/relationships/dashboard/data/id']);
    expect(foreign.json.errors[0].code).toBe('invalid_relationship');
    const made = (await create({ name: 'fixed dashboard' })).json.data.id;
    const moved = await jsonApi(
      `/dashboard_sharing_links/${made}`,
      'PATCH',
      {
        type: 'dashboard_sharing_links',
        id: made,
        relationships: { dashboard: { data: { type: 'dashboards', id: org.sampleDashboard.id } } },
      },
      key,
    );
    expect(pointers(moved)).toEqual(['/data/relationships/dashboard']);
    expect((await call('/dashboard_sharing_links', { key, method: 'POST', body: { data: link({ name: 'x' }) } })).status).toBe(415);
  });

  it('validates ip_whitelist entries, naming the bad one', async () => {
    const bad = [
      '1.2.3.256',
      '10.0.0.0/33',
      '2001:db8::/129',
      'example.com',
      '1.2.3',
      '1::2::3',
      '10.0.0.1, , 10.0.0.2',
      '10.0.0.0/8/1',
      '01.2.3.4x',
      '12345::',
      '1.2.3.4/-1',
    ];
    for (const entry of bad) {
      const res = await create({ name: 'x', ip_whitelist: entry });
      expect(pointers(res), entry).toEqual(['/data/attributes/ip_whitelist']);
      expect(res.json.errors[0].code).toBe('invalid_attribute');
    }
    const named = await create({ name: 'x', ip_whitelist: '10.0.0.1, 300.1.1.1' });
    expect(named.json.errors[0].detail).toContain('"300.1.1.1"');
    const empty = await create({ name: 'x', ip_whitelist: '  ' });
    expect(empty.json.data.attributes.ip_whitelist).toBeNull();
    const ok = await create({ name: 'x', ip_whitelist: '0.0.0.0/0,::/0,fe80::1,1:2:3:4:5:6:7:8,1:2:3:4:5:6:1.2.3.4' });
    expect(ok.status).toBe(201);
    const patched = await patch(ok.json.data.id, { ip_whitelist: 'nonsense' });
    expect(pointers(patched)).toEqual(['/data/attributes/ip_whitelist']);
  });
});

describe('filter_bar_enabled needs toolbar_enabled and parameters_enabled', () => {
  it('is checked on create against the defaults', async () => {
    expect(pointers(await create({ name: 'x', filter_bar_enabled: true }))).toEqual(['/data/attributes/filter_bar_enabled']);
    expect(pointers(await create({ name: 'x', filter_bar_enabled: true, parameters_enabled: true, toolbar_enabled: false }))).toEqual([
      '/data/attributes/filter_bar_enabled',
    ]);
    const ok = await create({ name: 'x', filter_bar_enabled: true, parameters_enabled: true });
    expect(ok.status).toBe(201);
    expect(ok.json.data.attributes).toMatchObject({ filter_bar_enabled: true, parameters_enabled: true, toolbar_enabled: true });
  });

  it('is checked on update against the stored values, pointing at what the request changed', async () => {
    const id = (await create({ name: 'bar', filter_bar_enabled: true, parameters_enabled: true })).json.data.id;
    const off = await patch(id, { toolbar_enabled: false });
    expect(pointers(off)).toEqual(['/data/attributes/toolbar_enabled']);
    expect(pointers(await patch(id, { parameters_enabled: false }))).toEqual(['/data/attributes/parameters_enabled']);
    const both = await patch(id, { filter_bar_enabled: false, parameters_enabled: false });
    expect(both.status).toBe(201);
    expect(pointers(await patch(id, { filter_bar_enabled: true }))).toEqual(['/data/attributes/filter_bar_enabled']);
    expect(await stored(id)).toMatchObject({ filter_bar_enabled: false, parameters_enabled: false, toolbar_enabled: true });
  });

  it('never ends in an invalid combination when updates race', async () => {
    for (let round = 0; round < 8; round++) {
      const id = (await create({ name: `race ${round}`, parameters_enabled: true })).json.data.id;
      const answers = await Promise.all([0, 1, 2].flatMap(() => [patch(id, { parameters_enabled: false }), patch(id, { filter_bar_enabled: true })]));
      // Whichever comes first wins; every request of the other kind must then lose with 422.
      const won = (i: number) => answers.filter((a, j) => j % 2 === i && a.status === 201).length;
      expect(won(0) === 0 || won(1) === 0, answers.map((a) => a.status).join()).toBe(true);
      const row = await stored(id);
      expect(!row.filter_bar_enabled || (row.parameters_enabled && row.toolbar_enabled), JSON.stringify(row)).toBe(true);
    }
  });

  it('keeps every field of concurrent updates of different attributes', async () => {
    const id = (await create({ name: 'multi' })).json.data.id;
    const res = await Promise.all([
      patch(id, { name: 'multi 2' }),
      patch(id, { color_mode: 'dark' }),
      patch(id, { refresh_enabled: true }),
      patch(id, { description: 'd' }),
    ]);
    expect(res.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect((await call(`/dashboard_sharing_links/${id}`, { key })).json.data.attributes).toMatchObject({
      name: 'multi 2',
      color_mode: 'dark',
      refresh_enabled: true,
      description: 'd',
    });
  });
});

describe('reading, updating and deleting', () => {
  it('reads one link with its dashboard, updates with 201 and deletes with 204', async () => {
    const id = (await create({ name: 'Life' })).json.data.id;
    const got = await call(`/dashboard_sharing_links/${id}?include=dashboard`, { key });
    expect(got.status).toBe(200);
    expectJsonApiDocument(got.json);
    expect(got.json.included).toHaveLength(1);
    expect(got.json.included[0]).toMatchObject({ type: 'dashboards', id: org.sampleDashboard.id });
    expect((await call(`/dashboard_sharing_links/${id}?include=owner`, { key })).status).toBe(400);
    const p = await patch(id, { name: 'Life 2', color_mode: 'dark' });
    expect(p.status).toBe(201);
    expect(p.json.data.attributes).toMatchObject({ name: 'Life 2', color_mode: 'dark', toolbar_enabled: true });
    const del = await call(`/dashboard_sharing_links/${id}`, { key, method: 'DELETE' });
    expect(del.status).toBe(204);
    const gone = await call(`/dashboard_sharing_links/${id}`, { key });
    expect(gone.status).toBe(404);
    expectJsonApiDocument(gone.json);
    const actions = (await db().select().from(auditLog).where(eq(auditLog.resource_id, id))).map((l) => l.action).sort();
    expect(actions).toEqual(['create', 'delete', 'update']);
  });

  it('lists links page by page with a total, optionally with their dashboards', async () => {
    const list = await call('/dashboard_sharing_links?page[size]=2&include=dashboard', { key });
    expect(list.status).toBe(200);
    expectJsonApiDocument(list.json);
    expect(list.json.data).toHaveLength(2);
    expect(list.json.meta.total).toBeGreaterThan(2);
    expect(list.json.links.next).toContain('page%5Bnumber%5D=2');
    expect(list.json.included.map((d: any) => d.id)).toEqual([org.sampleDashboard.id]);
    const all = await call('/dashboard_sharing_links?page[size]=200', { key });
    expect(all.json.data.every((l: any) => l.relationships.dashboard.data.id === org.sampleDashboard.id)).toBe(true);
  });

  it("answers 404 for another organization's link and never lists it", async () => {
    const otherKey = await makeKey(other.organization.id);
    const theirs = (await jsonApi('/dashboard_sharing_links', 'POST', link({ name: 'theirs' }, other.sampleDashboard.id), otherKey)).json.data.id;
    expect((await call(`/dashboard_sharing_links/${theirs}`, { key })).status).toBe(404);
    expect((await patch(theirs, { name: 'mine' })).status).toBe(404);
    expect((await call(`/dashboard_sharing_links/${theirs}`, { key, method: 'DELETE' })).status).toBe(404);
    const mine = await call('/dashboard_sharing_links?page[size]=200', { key });
    expect(mine.json.data.map((l: any) => l.id)).not.toContain(theirs);
  });
});

describe('permissions', () => {
  it('needs Manage Dashboards for every call, reading included', async () => {
    const id = (await create({ name: 'Guarded' })).json.data.id;
    const viewKey = await makeKey(orgId, only('view_dashboards'));
    for (const res of [
      await call('/dashboard_sharing_links', { key: viewKey }),
      await call(`/dashboard_sharing_links/${id}`, { key: viewKey }),
      await create({ name: 'x' }, undefined, viewKey),
      await patch(id, { name: 'x' }, viewKey),
      await call(`/dashboard_sharing_links/${id}`, { key: viewKey, method: 'DELETE' }),
    ]) {
      expect(res.status).toBe(403);
      expectJsonApiDocument(res.json);
      expect(res.json.errors[0].code).toBe('forbidden');
    }
    const viewer = await makeUser(orgId, 'viewer');
    expect((await call(`/dashboard_sharing_links/${id}`, { session: viewer.session })).status).toBe(403);
    const analyst = await makeUser(orgId, 'analyst');
    expect((await call(`/dashboard_sharing_links/${id}`, { session: analyst.session })).status).toBe(200);
    expect((await create({ name: 'by analyst' }, undefined, { session: analyst.session })).status).toBe(201);
  });

  it('limits a key restricted to named dashboards to their links', async () => {
    const second = (await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Second' } }, key)).json.data.id;
    const onSecond = (await create({ name: 'on second' }, second)).json.data.id;
    const onSample = (await create({ name: 'on sample' })).json.data.id;
    const restricted = await makeKey(orgId, [{ permission: 'manage_dashboards', resources: [{ type: 'dashboards', id: second }] }]);
    const list = await call('/dashboard_sharing_links?page[size]=200', { key: restricted });
    expect(list.json.data.map((l: any) => l.id)).toEqual([onSecond]);
    expect((await call(`/dashboard_sharing_links/${onSecond}`, { key: restricted })).status).toBe(200);
    expect([403, 404]).toContain((await call(`/dashboard_sharing_links/${onSample}`, { key: restricted })).status);
    expect([403, 404]).toContain((await patch(onSample, { name: 'x' }, restricted)).status);
    expect((await create({ name: 'x' }, org.sampleDashboard.id, restricted)).status).toBe(403);
    expect((await create({ name: 'ok' }, second, restricted)).status).toBe(201);
    // A key that views everything but manages only `second` still sees only that dashboard's links.
    const mixed = await makeKey(orgId, [
      { permission: 'view_dashboards', resources: null },
      { permission: 'manage_dashboards', resources: [{ type: 'dashboards', id: second }] },
    ]);
    const mixedList = await call('/dashboard_sharing_links?page[size]=200', { key: mixed });
    expect(mixedList.json.data.every((l: any) => l.relationships.dashboard.data.id === second)).toBe(true);
    expect((await call(`/dashboard_sharing_links/${onSample}`, { key: mixed })).status).toBe(403);
  });

  it('hides links of a private dashboard from users who cannot see it', async () => {
    const owner = await makeUser(orgId, 'analyst');
    const privateDash = (await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Private' } }, { session: owner.session })).json.data
      .id;
    const id = (await create({ name: 'private link' }, privateDash, { session: owner.session })).json.data.id;
    const peer = await makeUser(orgId, 'analyst');
    expect((await call(`/dashboard_sharing_links/${id}`, { session: peer.session })).status).toBe(404);
    expect((await call('/dashboard_sharing_links?page[size]=200', { session: peer.session })).json.data.map((l: any) => l.id)).not.toContain(id);
    expect((await create({ name: 'x' }, privateDash, { session: peer.session })).status).toBe(422);
    expect((await call(`/dashboard_sharing_links/${id}`, { session: owner.session })).status).toBe(200);
  });
});
