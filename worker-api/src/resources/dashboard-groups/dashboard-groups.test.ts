import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, dashboardGroups } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
const group = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  type: 'dashboard_groups',
  attributes,
  ...(relationships ? { relationships } : {}),
});

beforeAll(async () => {
  org = await makeOrg('groups');
  key = await makeKey(org.organization.id);
});

describe('dashboard groups', () => {
  it('creates, reads, updates and deletes, recording each write in the audit log', async () => {
    const dash = org.sampleDashboard.id;
    const made = await jsonApi(
      '/dashboard_groups',
      'POST',
      group(
        { name: 'Sales', description: 'Numbers' },
        {
          dashboards: { data: [{ type: 'dashboards', id: dash }] },
        },
      ),
      key,
    );
    expect(made.status).toBe(201);
    expectJsonApiDocument(made.json);
    const id = made.json.data.id;
    expect(made.json.data).toMatchObject({
      type: 'dashboard_groups',
      attributes: { name: 'Sales', description: 'Numbers' },
      relationships: { dashboards: { data: [{ type: 'dashboards', id: dash }] } },
    });
    const got = await call(`/dashboard_groups/${id}?include=dashboards`, { key });
    expect(got.status).toBe(200);
    expect(got.json.included.map((r: any) => r.id)).toEqual([dash]);
    const patched = await jsonApi(`/dashboard_groups/${id}`, 'PATCH', { ...group({ description: null }), id }, key);
    expect(patched.status).toBe(200);
    expect(patched.json.data.attributes).toMatchObject({ name: 'Sales', description: null });
    expect((await call(`/dashboard_groups/${id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/dashboard_groups/${id}`, { key })).status).toBe(404);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, org.organization.id), eq(auditLog.resource_id, id)));
    expect(log.map((l) => l.action).sort()).toEqual(['create', 'delete', 'update']);
    expect(log.every((l) => l.actor_type === 'api_key' && l.request_id)).toBe(true);
  });

  it('validates bodies with pointers: required name, read-only and unknown attributes, types, media type', async () => {
    const missing = await jsonApi('/dashboard_groups', 'POST', group({}), key);
    expect(missing.status).toBe(422);
    expect(missing.json.errors[0]).toMatchObject({ code: 'missing_attribute', source: { pointer: '/data/attributes/name' } });
    const ro = await jsonApi('/dashboard_groups', 'POST', group({ name: 'x', created_at: '2020-01-01', colour: 'red' }), key);
    expect(ro.status).toBe(422);
    expect(ro.json.errors.map((e: any) => [e.code, e.source.pointer])).toEqual(
      expect.arrayContaining([
        ['read_only_attribute', '/data/attributes/created_at'],
        ['unknown_attribute', '/data/attributes/colour'],
      ]),
    );
    const wrongType = await jsonApi('/dashboard_groups', 'POST', { type: 'dashboards', attributes: { name: 'x' } }, key);
    expect(wrongType.status).toBe(409);
    const badName = await jsonApi('/dashboard_groups', 'POST', group({ name: 42 }), key);
    expect(badName.status).toBe(422);
    expect(badName.json.errors[0].source.pointer).toBe('/data/attributes/name');
    const plainJson = await call('/dashboard_groups', { key, method: 'POST', body: { data: group({ name: 'x' }) } });
    expect(plainJson.status).toBe(415);
    const notMine = await jsonApi(
      '/dashboard_groups',
      'POST',
      group({ name: 'x' }, { dashboards: { data: [{ type: 'dashboards', id: newId('dashboard') }] } }),
      key,
    );
    expect(notMine.status).toBe(422);
    expect(notMine.json.errors[0].source.pointer).toBe('/data/relationships/dashboards/data/0/id');
    const badJson = await call('/dashboard_groups', { key, method: 'POST', rawBody: '{"data":', contentType: 'application/vnd.api+json' });
    expect(badJson.status).toBe(400);
  });

  // GET with a body cannot be sent from inside workerd (fetch refuses it); e2e/dashboard-groups-sort.stack.test.ts sends it over HTTP.
  it('sorts with POST, and lists in that order', async () => {
    const ids: string[] = [];
    for (const name of ['A', 'B', 'C']) ids.push((await jsonApi('/dashboard_groups', 'POST', group({ name }), key)).json.data.id);
    const get = await call('/dashboard_groups/sort', { key, method: 'POST', body: { dashboard_group_ids: [ids[2], ids[0]] } });
    expect(get.status).toBe(204);
    let list = await call('/dashboard_groups', { key });
    expectJsonApiDocument(list.json);
    const order = list.json.data.map((g: any) => g.id).filter((id: string) => ids.includes(id));
    expect(order).toEqual([ids[2], ids[0], ids[1]]);
    expect((await call('/dashboard_groups/sort', { key, method: 'POST', body: { dashboard_group_ids: [ids[1]] } })).status).toBe(204);
    list = await call('/dashboard_groups', { key });
    expect(list.json.data.map((g: any) => g.id).filter((id: string) => ids.includes(id))).toEqual([ids[1], ids[2], ids[0]]);
    const unknown = await call('/dashboard_groups/sort', { key, method: 'POST', body: { dashboard_group_ids: ['dgr_nope'] } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.errors[0].source.pointer).toBe('/dashboard_group_ids/0');
    const twice = await call('/dashboard_groups/sort', { key, method: 'POST', body: { dashboard_group_ids: [ids[0], ids[0]] } });
    expect(twice.status).toBe(422);
  });

  it('paginates with links and a total', async () => {
    const res = await call('/dashboard_groups?page[size]=2', { key });
    expect(res.json.data).toHaveLength(2);
    expect(res.json.meta.total).toBeGreaterThanOrEqual(3);
    expect(res.json.links.next).toContain('page%5Bnumber%5D=2');
    expect((await call('/dashboard_groups?page[size]=500', { key })).status).toBe(400);
  });

  it('keeps personal groups away from API keys; their owner sees them', async () => {
    const user = await makeUser(org.organization.id, 'analyst');
    const id = newId('dashboard_group');
    await db().insert(dashboardGroups).values({ id, organization_id: org.organization.id, name: 'Mine', personal_user_id: user.id });
    expect((await call(`/dashboard_groups/${id}`, { key })).status).toBe(404);
    expect((await call('/dashboard_groups?page[size]=200', { key })).json.data.map((g: any) => g.id)).not.toContain(id);
    expect((await call(`/dashboard_groups/${id}`, { session: user.session })).status).toBe(200);
    const other = await makeUser(org.organization.id, 'admin');
    expect((await call(`/dashboard_groups/${id}`, { session: other.session })).status).toBe(404);
  });

  it('lets a signed-in user create and keep personal groups; keys can neither create nor see them', async () => {
    const viewer = await makeUser(org.organization.id, 'viewer');
    const made = await jsonApi('/dashboard_groups', 'POST', group({ name: 'My picks', personal: true }), { session: viewer.session });
    expect(made.status).toBe(201);
    expect(made.json.data.attributes).toMatchObject({ name: 'My picks', personal: true });
    const id = made.json.data.id;
    const renamed = await jsonApi(`/dashboard_groups/${id}`, 'PATCH', { ...group({ name: 'Picks' }), id }, { session: viewer.session });
    expect(renamed.status).toBe(200);
    const flip = await jsonApi(`/dashboard_groups/${id}`, 'PATCH', { ...group({ personal: false }), id }, { session: viewer.session });
    expect(flip.status).toBe(422);
    expect(flip.json.errors[0].source.pointer).toBe('/data/attributes/personal');
    expect((await call(`/dashboard_groups/${id}`, { key })).status).toBe(404);
    expect((await call(`/dashboard_groups/${id}`, { key, method: 'DELETE' })).status).toBe(404);
    const byKey = await jsonApi('/dashboard_groups', 'POST', group({ name: 'k', personal: true }), key);
    expect(byKey.status).toBe(422);
    expect(byKey.json.errors[0].source.pointer).toBe('/data/attributes/personal');
    const shared = (await jsonApi('/dashboard_groups', 'POST', group({ name: 'Shared' }), key)).json.data;
    expect(shared.attributes.personal).toBe(false);
    expect((await call(`/dashboard_groups/${shared.id}`, { session: viewer.session, method: 'DELETE' })).status).toBe(403);
    expect((await call(`/dashboard_groups/${id}`, { session: viewer.session, method: 'DELETE' })).status).toBe(204);
  });

  it('viewers read groups but cannot change them', async () => {
    const viewer = await makeUser(org.organization.id, 'viewer');
    expect((await call('/dashboard_groups', { session: viewer.session })).status).toBe(200);
    const res = await jsonApi('/dashboard_groups', 'POST', group({ name: 'nope' }), { session: viewer.session });
    expect(res.status).toBe(403);
    const readOnlyKey = await makeKey(org.organization.id, only('view_dashboards'));
    expect((await jsonApi('/dashboard_groups', 'POST', group({ name: 'nope' }), readOnlyKey)).status).toBe(403);
  });

  it('concurrent updates of different attributes both survive', async () => {
    const id = (await jsonApi('/dashboard_groups', 'POST', group({ name: 'Race' }), key)).json.data.id;
    await Promise.all([
      jsonApi(`/dashboard_groups/${id}`, 'PATCH', { ...group({ name: 'Race 2' }), id }, key),
      jsonApi(`/dashboard_groups/${id}`, 'PATCH', { ...group({ description: 'described' }), id }, key),
    ]);
    const got = await call(`/dashboard_groups/${id}`, { key });
    expect(got.json.data.attributes).toMatchObject({ name: 'Race 2', description: 'described' });
  });
});
