import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { organizations, sessions, userGroupMembers, users } from '@cairn/db';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
const email = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 10)}@example.test`;
const invite = (body: Record<string, unknown>, auth: { key?: string; session?: string } = { key }) => call('/users/invite', { ...auth, method: 'POST', body });
const patchRole = (id: string, role: string, auth: { key?: string; session?: string } = { key }) =>
  jsonApi(`/users/${id}`, 'PATCH', { type: 'users', id, attributes: { role } }, auth);

beforeAll(async () => {
  org = await makeOrg('users');
  key = await makeKey(org.organization.id);
});

describe('users', () => {
  it('invites as viewer by default, lists and reads, with groups and the inviter', async () => {
    const admin = await makeUser(org.organization.id, 'admin');
    const res = await invite({ email: email('Invitee').toUpperCase() }, { session: admin.session });
    expect(res.status).toBe(201);
    expectJsonApiDocument(res.json);
    const u = res.json.data;
    expect(u.attributes).toMatchObject({ role: 'viewer', status: 'invited', deactivated_at: null });
    expect(u.attributes.email).toBe(u.attributes.email.toLowerCase());
    expect(u.attributes.invitation_created_at).toBeTruthy();
    expect(u.relationships.invited_by_user.data).toEqual({ type: 'users', id: admin.id });
    const got = await call(`/users/${u.id}?include=user_groups,invited_by_user`, { key });
    expect(got.status).toBe(200);
    expectJsonApiDocument(got.json);
    const builtIn = got.json.included.filter((r: any) => r.type === 'user_groups').map((g: any) => g.attributes.built_in_behavior);
    expect(builtIn).toEqual(['all_users']);
    expect(got.json.included.some((r: any) => r.type === 'users' && r.id === admin.id)).toBe(true);
    const list = await call('/users?page[size]=200', { key });
    expect(list.json.data.map((x: any) => x.id)).toContain(u.id);
    const dup = await invite({ email: u.attributes.email });
    expect(dup.status).toBe(409);
    const bad = await invite({ email: 'not-an-address' });
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].source.pointer).toBe('/email');
  });

  it('shows otp fields only with Manage Users', async () => {
    const viewKey = await makeKey(org.organization.id, only('view_users'));
    const a = await call(`/users/${org.admin.id}`, { key: viewKey });
    expect(a.json.data.attributes).not.toHaveProperty('otp_app_enabled');
    const b = await call(`/users/${org.admin.id}`, { key });
    expect(b.json.data.attributes).toHaveProperty('otp_app_enabled', false);
  });

  it('keys never make admins, update admins or deactivate admins; roles via the API are analyst or viewer', async () => {
    expect((await invite({ email: email('boss'), role: 'admin' })).status).toBe(403);
    const admin = await makeUser(org.organization.id, 'admin');
    expect((await patchRole(admin.id, 'viewer')).status).toBe(403);
    expect((await call(`/users/${admin.id}/deactivate`, { key, method: 'POST' })).status).toBe(403);
    const v = await makeUser(org.organization.id, 'viewer');
    const promote = await patchRole(v.id, 'admin');
    expect(promote.status).toBe(403);
    expect((await patchRole(v.id, 'analyst')).json.data.attributes.role).toBe('analyst');
    const weird = await patchRole(v.id, 'owner');
    expect(weird.status).toBe(422);
    expect(weird.json.errors[0].source.pointer).toBe('/data/attributes/role');
    const ro = await jsonApi(`/users/${v.id}`, 'PATCH', { type: 'users', id: v.id, attributes: { email: 'x@y.z' } }, key);
    expect(ro.status).toBe(422);
    expect(ro.json.errors[0].code).toBe('read_only_attribute');
    // An admin in the app may promote.
    expect((await patchRole(v.id, 'admin', { session: admin.session })).json.data.attributes.role).toBe('admin');
  });

  it('deactivation signs out and blocks; reactivation as viewer or analyst only', async () => {
    const a = await makeUser(org.organization.id, 'analyst');
    expect((await call('/dashboards', { session: a.session })).status).toBe(200);
    expect((await call(`/users/${a.id}/deactivate`, { key, method: 'POST' })).status).toBe(204);
    expect((await call('/dashboards', { session: a.session })).status).toBe(401);
    expect(await db().select().from(sessions).where(eq(sessions.user_id, a.id))).toHaveLength(0);
    const got = await call(`/users/${a.id}`, { key });
    expect(got.json.data.attributes.status).toBe('deactivated');
    expect((await call(`/users/${a.id}/activate`, { key, method: 'POST', body: { role: 'admin' } })).status).toBe(422);
    expect((await call(`/users/${a.id}/activate`, { key, method: 'POST', body: { role: 'viewer' } })).status).toBe(204);
    const back = await call(`/users/${a.id}`, { key });
    expect(back.json.data.attributes).toMatchObject({ role: 'viewer', status: 'active', deactivated_at: null });
  });

  it('former admins come back as viewer; the last admin stays; nobody deactivates themselves', async () => {
    const solo = await makeOrg('users-solo');
    const adminSession = await makeUser(solo.organization.id, 'admin');
    // Two admins: the seeded one and adminSession. Deactivating the seeded admin works...
    expect((await call(`/users/${solo.admin.id}/deactivate`, { session: adminSession.session, method: 'POST' })).status).toBe(204);
    // ...and adminSession cannot deactivate itself.
    const self = await call(`/users/${adminSession.id}/deactivate`, { session: adminSession.session, method: 'POST' });
    expect(self.status).toBe(422);
    expect((await call(`/users/${solo.admin.id}/activate`, { session: adminSession.session, method: 'POST' })).status).toBe(204);
    const [row] = await db().select().from(users).where(eq(users.id, solo.admin.id));
    expect(row!.role).toBe('viewer');
    const demoteSelf = await patchRole(adminSession.id, 'viewer', { session: adminSession.session });
    expect(demoteSelf.status).toBe(422);
  });

  it('analyst seats are limited by the plan; deactivated users free their seat', async () => {
    const small = await makeOrg('users-seats');
    const k = await makeKey(small.organization.id);
    await db().update(organizations).set({ plan_analyst_seats: 2 }).where(eq(organizations.id, small.organization.id));
    // The seeded admin holds one seat.
    const a = await call('/users/invite', { key: k, method: 'POST', body: { email: email('seat'), role: 'analyst' } });
    expect(a.status).toBe(201);
    const full = await call('/users/invite', { key: k, method: 'POST', body: { email: email('seat'), role: 'analyst' } });
    expect(full.status).toBe(422);
    expect(full.json.errors[0].code).toBe('plan_limit');
    const v = await makeUser(small.organization.id, 'viewer');
    expect((await patchRole(v.id, 'analyst', { key: k })).json.errors[0].code).toBe('plan_limit');
    await call(`/users/${a.json.data.id}/deactivate`, { key: k, method: 'POST' });
    expect((await patchRole(v.id, 'analyst', { key: k })).status).toBe(200);
    expect((await call(`/users/${a.json.data.id}/activate`, { key: k, method: 'POST', body: { role: 'analyst' } })).json.errors[0].code).toBe('plan_limit');
  });

  it('resends and revokes pending invitations only', async () => {
    const res = await invite({ email: email('pending') });
    const id = res.json.data.id;
    const [before] = await db().select().from(users).where(eq(users.id, id));
    expect((await call(`/users/invite/${id}`, { key, method: 'POST' })).status).toBe(204);
    const [after] = await db().select().from(users).where(eq(users.id, id));
    expect(after!.invitation_token_hash).not.toBe(before!.invitation_token_hash);
    expect((await call(`/users/invite/${id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/users/${id}`, { key })).status).toBe(404);
    const active = await makeUser(org.organization.id, 'viewer');
    expect((await call(`/users/invite/${active.id}`, { key, method: 'DELETE' })).status).toBe(422);
  });

  it('sets explicit groups by id or ignores built-in aliases; unknown ids are 422', async () => {
    const g = await jsonApi('/user_groups', 'POST', { type: 'user_groups', attributes: { name: `Team ${Math.random()}` } }, key);
    const res = await invite({ email: email('grouped'), user_group_ids: [g.json.data.id, 'all_users'] });
    expect(res.status).toBe(201);
    const id = res.json.data.id;
    const rel = (await call(`/users/${id}`, { key })).json.data.relationships.user_groups.data.map((x: any) => x.id);
    expect(rel).toContain(g.json.data.id);
    const bad = await jsonApi(
      `/users/${id}`,
      'PATCH',
      { type: 'users', id, relationships: { user_groups: { data: [{ type: 'user_groups', id: 'ugr_nope' }] } } },
      key,
    );
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].source.pointer).toBe('/data/relationships/user_groups/data/0/id');
    // An explicit row for a built-in group (older data) does not list that group twice.
    const allUsers = (await call('/user_groups/all_users', { key })).json.data.id;
    await db().insert(userGroupMembers).values({ organization_id: org.organization.id, user_group_id: allUsers, user_id: id });
    const once = (await call(`/users/${id}`, { key })).json.data.relationships.user_groups.data.map((x: any) => x.id);
    expect(once.filter((g: string) => g === allUsers)).toHaveLength(1);
    const cleared = await jsonApi(`/users/${id}`, 'PATCH', { type: 'users', id, relationships: { user_groups: { data: [] } } }, key);
    expect(cleared.json.data.relationships.user_groups.data.map((x: any) => x.id)).not.toContain(g.json.data.id);
  });

  it('viewers and analysts cannot manage users; another organization is invisible', async () => {
    const analyst = await makeUser(org.organization.id, 'analyst');
    expect((await call('/users', { session: analyst.session })).status).toBe(200);
    expect((await invite({ email: email('nope') }, { session: analyst.session })).status).toBe(403);
    const viewer = await makeUser(org.organization.id, 'viewer');
    expect((await call('/users', { session: viewer.session })).status).toBe(403);
    const other = await makeOrg('users-other');
    expect((await call(`/users/${other.admin.id}`, { key })).status).toBe(404);
    const list = await call('/users?page[size]=200', { key });
    expect(list.json.data.every((u: any) => u.id !== other.admin.id)).toBe(true);
    expect(
      await db()
        .select()
        .from(users)
        .where(and(eq(users.organization_id, org.organization.id), eq(users.id, other.admin.id))),
    ).toHaveLength(0);
  });
});
