import { beforeAll, describe, expect, it } from 'vitest';
import { call, jsonApi, makeKey, makeOrg, makeUser } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
const grp = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  type: 'user_groups',
  attributes,
  ...(relationships ? { relationships } : {}),
});

beforeAll(async () => {
  org = await makeOrg('user-groups');
  key = await makeKey(org.organization.id);
});

describe('user groups', () => {
  it('lists the built-in groups first, reachable by alias, with members by rule', async () => {
    const analyst = await makeUser(org.organization.id, 'analyst');
    const viewer = await makeUser(org.organization.id, 'viewer');
    const list = await call('/user_groups', { key });
    expectJsonApiDocument(list.json);
    expect(
      list.json.data
        .slice(0, 2)
        .map((g: any) => g.attributes.built_in_behavior)
        .sort(),
    ).toEqual(['all_analysts', 'all_users']);
    const all = await call('/user_groups/all_users?include=users', { key });
    expect(all.status).toBe(200);
    const members = all.json.data.relationships.users.data.map((u: any) => u.id);
    expect(members).toEqual(expect.arrayContaining([org.admin.id, analyst.id, viewer.id]));
    const analysts = await call('/user_groups/all_analysts', { key });
    const am = analysts.json.data.relationships.users.data.map((u: any) => u.id);
    expect(am).toContain(analyst.id);
    expect(am).not.toContain(viewer.id);
    expect((await call('/user_groups/all_users', { key, method: 'DELETE' })).status).toBe(422);
    const setMembers = await jsonApi(`/user_groups/${all.json.data.id}`, 'PATCH', { ...grp({}, { users: { data: [] } }), id: all.json.data.id }, key);
    expect(setMembers.status).toBe(422);
    const ro = await jsonApi(`/user_groups/${all.json.data.id}`, 'PATCH', { ...grp({ built_in_behavior: null }), id: all.json.data.id }, key);
    expect(ro.json.errors[0]).toMatchObject({ code: 'read_only_attribute', source: { pointer: '/data/attributes/built_in_behavior' } });
  });

  it('creates with members, renames, replaces members and deletes; names are unique', async () => {
    const v = await makeUser(org.organization.id, 'viewer');
    const made = await jsonApi('/user_groups', 'POST', grp({ name: 'Finance' }, { users: { data: [{ type: 'users', id: v.id }] } }), key);
    expect(made.status).toBe(201);
    const id = made.json.data.id;
    expect(made.json.data.relationships.users.data).toEqual([{ type: 'users', id: v.id }]);
    expect((await jsonApi('/user_groups', 'POST', grp({ name: 'finance' }), key)).status).toBe(409);
    const renamed = await jsonApi(`/user_groups/${id}`, 'PATCH', { ...grp({ name: 'Money' }, { users: { data: [] } }), id }, key);
    expect(renamed.json.data.attributes.name).toBe('Money');
    expect(renamed.json.data.relationships.users.data).toEqual([]);
    const badUser = await jsonApi(`/user_groups/${id}`, 'PATCH', { ...grp({}, { users: { data: [{ type: 'users', id: 'usr_nope' }] } }), id }, key);
    expect(badUser.json.errors[0].source.pointer).toBe('/data/relationships/users/data/0/id');
    expect((await jsonApi('/user_groups', 'POST', grp({}), key)).json.errors[0].code).toBe('missing_attribute');
    expect((await call(`/user_groups/${id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/user_groups/${id}`, { key })).status).toBe(404);
  });
});
