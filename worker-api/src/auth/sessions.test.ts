import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { dashboards, users } from '@cairn/db';
import { newId, randomString } from '@cairn/core';
import { addUser, call, db, makeOrg } from '../../test/fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
// From one client address, as the edge (or the web app, passing on the edge's header) sends it.
const signIn = (email: string, password: string) =>
  call('/auth/sessions', { method: 'POST', body: { email, password }, headers: { 'cf-connecting-ip': '198.51.100.1' } });

beforeAll(async () => {
  org = await makeOrg('sessions');
});

describe('web-app sessions', () => {
  it('signs in with the right password only', async () => {
    const bad = await signIn(org.admin.email, 'wrong password');
    expect(bad.status).toBe(401);
    expect(bad.json.errors[0].detail).toMatch(/e-mail or password/);
    const unknown = await signIn('nobody@example.test', 'whatever');
    expect(unknown.status).toBe(401);
    const ok = await signIn(org.admin.email.toUpperCase(), 'correct horse battery');
    expect(ok.status).toBe(201);
    expect(ok.json.user).toMatchObject({ id: org.admin.id, role: 'admin' });
    expect(ok.json.organization.id).toBe(org.organization.id);
    expect(ok.json.token).toMatch(/^eu_[0-9A-Za-z]{48}$/);
  });

  it('finds a user whose e-mail was stored with capitals, whatever case is typed', async () => {
    const { email: stored } = await addUser(org.organization.id, {
      email: `Mixed.Case-${randomString(8)}@Example.Test`,
      role: 'analyst',
      password: 'mixed case pw',
    });
    for (const typed of [stored.toLowerCase(), stored.toUpperCase(), stored]) {
      const res = await signIn(typed, 'mixed case pw');
      expect(res.status, typed).toBe(201);
      expect(res.json.user.email).toBe(stored);
    }
  });

  it('slows password guessing per e-mail and client address', async () => {
    const target = `guess-${Date.now()}@example.test`;
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await signIn(target, 'guess')).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    const last = await signIn(target, 'guess');
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('counts only failed sign-ins: many right ones in a row pass, and a locked address refuses even the right password', async () => {
    const { email } = await addUser(org.organization.id, { password: 'often right pw' });
    for (let i = 0; i < 15; i++) expect((await signIn(email, 'often right pw')).status, `sign-in ${i + 1}`).toBe(201);
    for (let i = 0; i < 10; i++) expect((await signIn(email, 'wrong')).status).toBe(401);
    const locked = await signIn(email, 'often right pw');
    expect(locked.status).toBe(429);
  });

  it('422 for a malformed sign-in body', async () => {
    const res = await call('/auth/sessions', { method: 'POST', body: { email: 'not-an-email' } });
    expect(res.status).toBe(422);
    expect(res.json.errors.map((e: any) => e.source.pointer).sort()).toEqual(['/email', '/password']);
  });

  it("a session reads the API with the role's permissions and ends on sign-out", async () => {
    const { json } = await signIn(org.admin.email, 'correct horse battery');
    const me = await call('/auth/session', { session: json.token });
    expect(me.json.permissions).toContain('manage_users');
    const list = await call('/dashboards', { session: json.token });
    expect(list.json.data.map((d: any) => d.id)).toContain(org.sampleDashboard.id);
    expect((await call('/auth/session', { session: json.token, method: 'DELETE' })).status).toBe(204);
    expect((await call('/dashboards', { session: json.token })).status).toBe(401);
  });

  it('a viewer sees shared dashboards but not private ones of others', async () => {
    const { id: viewerId, email } = await addUser(org.organization.id, { password: 'viewer password' });
    const privateId = newId('dashboard');
    await db().insert(dashboards).values({ id: privateId, organization_id: org.organization.id, name: 'Private', share_mode: 'none', user_id: org.admin.id });
    const { json } = await signIn(email, 'viewer password');
    const list = await call('/dashboards', { session: json.token });
    const ids = list.json.data.map((d: any) => d.id);
    expect(ids).toContain(org.sampleDashboard.id);
    expect(ids).not.toContain(privateId);
    expect((await call(`/dashboards/${privateId}`, { session: json.token })).status).toBe(404);
    const me = await call('/auth/session', { session: json.token });
    expect(me.json.permissions).not.toContain('manage_dashboards');
    await db().update(users).set({ deactivated_at: new Date() }).where(eq(users.id, viewerId));
    expect((await call('/dashboards', { session: json.token })).status).toBe(401);
  });
});
