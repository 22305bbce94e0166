/**
 * Personal settings (GET/PATCH /auth/me, POST /auth/password, GET /auth/sessions,
 * DELETE /auth/sessions/others) and password reset (POST /auth/password-resets, GET/POST
 * /auth/password-resets/{token}). The test config has no mail server: reset links are made with the
 * service the route uses (issueResetToken), and the delivered e-mail is checked in e2e/app-account.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { passwordResets, users } from '@cairn/db';
import { newId, sha256Hex } from '@cairn/core';
import { issueResetToken, RESET_MINUTES } from './password-reset.ts';
import { RESET_REQUESTED } from './password-reset-routes.ts';
import { addUser, call, db, makeKey, makeOrg } from '../../test/fixtures.ts';

let orgId: string;
const signIn = (email: string, password: string) => call('/auth/sessions', { method: 'POST', body: { email, password } });

/** A user with a password, and a session of theirs. */
async function person(password = 'first password') {
  const { id, email } = await addUser(orgId, { role: 'analyst', firstname: 'Ada', lastname: 'Byron', password });
  const { json } = await signIn(email, password);
  return { id, email, session: json.token as string };
}

beforeAll(async () => {
  orgId = (await makeOrg('account')).organization.id;
});

describe('personal settings', () => {
  it('reads and changes the own name', async () => {
    const p = await person();
    const me = await call('/auth/me', { session: p.session });
    expect(me.status).toBe(200);
    expect(me.json.user).toMatchObject({ id: p.id, email: p.email, firstname: 'Ada', lastname: 'Byron' });
    const changed = await call('/auth/me', { session: p.session, method: 'PATCH', body: { firstname: ' Grace ', lastname: 'Hopper' } });
    expect(changed.status).toBe(200);
    expect(changed.json.user).toMatchObject({ firstname: 'Grace', lastname: 'Hopper' });
    expect((await call('/auth/session', { session: p.session })).json.user.firstname).toBe('Grace');
  });

  it('422 with pointers for an empty first name or an unknown member', async () => {
    const p = await person();
    const empty = await call('/auth/me', { session: p.session, method: 'PATCH', body: { firstname: '  ' } });
    expect(empty.status).toBe(422);
    expect(empty.json.errors[0].source.pointer).toBe('/firstname');
    const unknown = await call('/auth/me', { session: p.session, method: 'PATCH', body: { email: 'x@example.test' } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.errors[0].code).toBe('unknown_attribute');
  });

  it('refuses API keys with 403 and no credentials with 401', async () => {
    const key = await makeKey(orgId);
    for (const [path, method] of [
      ['/auth/me', 'GET'],
      ['/auth/me', 'PATCH'],
      ['/auth/password', 'POST'],
      ['/auth/sessions', 'GET'],
      ['/auth/sessions/others', 'DELETE'],
    ] as const) {
      const body = method === 'PATCH' ? { firstname: 'Key' } : method === 'POST' ? { current_password: 'x', new_password: 'long enough' } : undefined;
      const res = await call(path, { key, method, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json.errors[0].detail).toMatch(/API key/);
      expect((await call(path, { method, body })).status, `${method} ${path} anonymous`).toBe(401);
    }
  });

  it('changes the password: current one required, at least 8 characters; other sessions end', async () => {
    const p = await person('old password');
    const other = (await signIn(p.email, 'old password')).json.token as string;
    const wrong = await call('/auth/password', { session: p.session, method: 'POST', body: { current_password: 'not it', new_password: 'new password' } });
    expect(wrong.status).toBe(422);
    expect(wrong.json.errors[0].source.pointer).toBe('/current_password');
    const short = await call('/auth/password', { session: p.session, method: 'POST', body: { current_password: 'old password', new_password: 'short' } });
    expect(short.status).toBe(422);
    expect(short.json.errors[0].source.pointer).toBe('/new_password');
    expect(short.json.errors[0].detail).toMatch(/at least 8/);
    const ok = await call('/auth/password', { session: p.session, method: 'POST', body: { current_password: 'old password', new_password: 'new password' } });
    expect(ok.status).toBe(204);
    expect((await signIn(p.email, 'old password')).status).toBe(401);
    expect((await signIn(p.email, 'new password')).status).toBe(201);
    expect((await call('/auth/me', { session: p.session })).status).toBe(200);
    expect((await call('/auth/me', { session: other })).status).toBe(401);
  });

  it('lists the own sessions and ends the others', async () => {
    const p = await person();
    const second = (await signIn(p.email, 'first password')).json.token as string;
    const someoneElse = await person();
    const list = await call('/auth/sessions', { session: p.session });
    expect(list.status).toBe(200);
    expect(list.json.data).toHaveLength(2);
    expect(list.json.data.filter((s: any) => s.current)).toHaveLength(1);
    expect(list.json.data[0]).toHaveProperty('user_agent');
    const ended = await call('/auth/sessions/others', { session: p.session, method: 'DELETE' });
    expect(ended.json).toEqual({ ended: 1 });
    expect((await call('/auth/me', { session: second })).status).toBe(401);
    expect((await call('/auth/me', { session: p.session })).status).toBe(200);
    expect((await call('/auth/me', { session: someoneElse.session })).status).toBe(200);
    expect((await call('/auth/sessions', { session: p.session })).json.data).toHaveLength(1);
  });
});

describe('password reset', () => {
  const request = (email: string) => call('/auth/password-resets', { method: 'POST', body: { email } });

  it('answers the same whether or not the address has an account; only a known one gets a link', async () => {
    const p = await person();
    const known = await request(p.email.toUpperCase());
    const unknown = await request(`nobody-${newId('user').toLowerCase()}@example.test`);
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(known.json).toEqual(unknown.json);
    expect(known.json.message).toBe(RESET_REQUESTED);
    const rows = await db().select().from(passwordResets).where(eq(passwordResets.user_id, p.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.expires_at.getTime() - Date.now()).toBeGreaterThan((RESET_MINUTES - 1) * 60_000);
  });

  it('422 for a malformed address; 429 after 3 requests for one address', async () => {
    expect((await request('not-an-email')).json.errors[0].source.pointer).toBe('/email');
    const target = `flood-${Date.now()}@example.test`;
    for (let i = 0; i < 3; i++) expect((await request(target)).status).toBe(202);
    const limited = await request(target);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a link sets a new password once, ends every session, and keeps only the hash', async () => {
    const p = await person('before reset');
    const token = await issueResetToken(db(), { id: p.id, organization_id: orgId });
    const [row] = await db().select().from(passwordResets).where(eq(passwordResets.user_id, p.id));
    expect(row!.token_hash).toBe(await sha256Hex(token.slice(16)));
    expect(JSON.stringify(row)).not.toContain(token.slice(16));
    const shown = await call(`/auth/password-resets/${token}`);
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({ email: p.email, min_password_length: 8 });
    const short = await call(`/auth/password-resets/${token}`, { method: 'POST', body: { password: 'short' } });
    expect(short.status).toBe(422);
    expect(short.json.errors[0].source.pointer).toBe('/password');
    const done = await call(`/auth/password-resets/${token}`, { method: 'POST', body: { password: 'after reset' } });
    expect(done.status).toBe(204);
    expect((await call('/auth/me', { session: p.session })).status).toBe(401);
    expect((await signIn(p.email, 'before reset')).status).toBe(401);
    expect((await signIn(p.email, 'after reset')).status).toBe(201);
    const again = await call(`/auth/password-resets/${token}`, { method: 'POST', body: { password: 'third password' } });
    expect(again.status).toBe(422);
    expect(again.json.errors[0].meta.reason).toBe('reset_used');
    expect((await call(`/auth/password-resets/${token}`)).json.errors[0].meta.reason).toBe('reset_used');
  });

  it('refuses expired, forged, replaced and malformed links', async () => {
    const p = await person();
    const old = await issueResetToken(db(), { id: p.id, organization_id: orgId }, Date.now() - (RESET_MINUTES + 1) * 60_000);
    const expired = await call(`/auth/password-resets/${old}`, { method: 'POST', body: { password: 'long enough' } });
    expect(expired.status).toBe(422);
    expect(expired.json.errors[0].meta.reason).toBe('reset_expired');
    const fresh = await issueResetToken(db(), { id: p.id, organization_id: orgId });
    // The older link was replaced by the newer one.
    expect((await call(`/auth/password-resets/${old}`)).status).toBe(404);
    const forged = fresh.slice(0, 16) + 'A'.repeat(40);
    const res = await call(`/auth/password-resets/${forged}`, { method: 'POST', body: { password: 'long enough' } });
    expect(res.status).toBe(404);
    expect(res.json.errors[0].source.parameter).toBe('token');
    expect((await call('/auth/password-resets/short-token')).status).toBe(404);
    // The forged attempts changed nothing: the real link still works.
    expect((await call(`/auth/password-resets/${fresh}`)).status).toBe(200);
  });

  it('no link for a deactivated user', async () => {
    const p = await person();
    await db().update(users).set({ deactivated_at: new Date() }).where(eq(users.id, p.id));
    expect((await request(p.email)).status).toBe(202);
    expect(await db().select().from(passwordResets).where(eq(passwordResets.user_id, p.id))).toHaveLength(0);
  });
});
