/**
 * Organization-wide account security (issue 20, D65–D66): "require two-factor authentication" and the
 * enrolment it forces, an admin's 2FA reset, sessions' last_seen_at, the audit events of sign-in and
 * account changes, and the admins' audit log call with its filters. Permissions: API keys, non-admins
 * and another organization's admin are refused.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, organizations, sessions, users } from '@cairn/db';
import { sha256Hex, totpCode } from '@cairn/core';
import { addUser, call, db, makeKey, makeOrg, makeUser } from '../../test/fixtures.ts';

const PASSWORD = 'org security pass';
/** The recovery codes of the latest enrolment. */
let lastRecoveryCodes: string[] = [];
let orgId: string;
let admin: { id: string; email: string; session: string; secret: string };
let otherAdmin: { id: string; session: string };

const signIn = (email: string, password = PASSWORD) => call('/auth/sessions', { method: 'POST', body: { email, password } });
const code = (secret: string, offset = 0) => totpCode(secret, Date.now() + offset * 30_000);

/** Waits for a condition the API writes after its answer (waitUntil). */
async function eventually<T>(read: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
  const until = Date.now() + 20_000;
  for (;;) {
    const v = await read();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function person(org = orgId, role: 'viewer' | 'analyst' | 'admin' = 'analyst') {
  const { id, email } = await addUser(org, { role, firstname: 'Grace', lastname: 'Hopper', password: PASSWORD });
  const res = await signIn(email);
  expect(res.status).toBe(201);
  return { id, email, session: res.json.token as string };
}

async function enrol(session: string) {
  const start = await call('/auth/two-factor', { session, method: 'POST' });
  expect(start.status).toBe(201);
  const secret = start.json.secret as string;
  const ok = await call('/auth/two-factor/confirm', { session, method: 'POST', body: { code: await code(secret) } });
  expect(ok.status).toBe(200);
  lastRecoveryCodes = ok.json.recovery_codes;
  return secret;
}

/** Signs in a person with 2FA on: password, then a code (of the next step, as the current one was used). */
async function signInWithCode(email: string, secret: string, offset = 1) {
  const first = await signIn(email);
  expect(first.json.two_factor_required).toBe(true);
  const second = await call('/auth/sessions/two-factor', { method: 'POST', body: { challenge: first.json.challenge, code: await code(secret, offset) } });
  expect(second.status).toBe(201);
  return second.json.token as string;
}

const setRequired = (session: string, on: boolean) => call('/auth/organization/security', { session, method: 'PUT', body: { require_two_factor: on } });

// Each sign-in and enrolment hashes a password (PBKDF2): slow on a loaded machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

beforeAll(async () => {
  orgId = (await makeOrg('org-security')).organization.id;
  const a = await person(orgId, 'admin');
  admin = { ...a, secret: await enrol(a.session) };
  const other = await person((await makeOrg('org-security-other')).organization.id, 'admin');
  otherAdmin = { id: other.id, session: other.session };
});

describe('require two-factor authentication', () => {
  it('is an admin setting: API keys, analysts and viewers are refused', async () => {
    const key = await makeKey(orgId);
    const analyst = await makeUser(orgId, 'analyst');
    const viewer = await makeUser(orgId, 'viewer');
    for (const who of [{ key }, { session: analyst.session }, { session: viewer.session }]) {
      expect((await call('/auth/organization/security', who)).status).toBe(403);
      const put = await call('/auth/organization/security', { ...who, method: 'PUT', body: { require_two_factor: true } });
      expect(put.status).toBe(403);
      expect(put.json.errors[0].code).toBe('forbidden');
    }
    const [org] = await db().select().from(organizations).where(eq(organizations.id, orgId));
    expect(org!.settings.require_two_factor).toBeUndefined();
  });

  it('refuses an admin without 2FA of their own, and a body of the wrong shape', async () => {
    const bare = await person(orgId, 'admin');
    const res = await setRequired(bare.session, true);
    expect(res.status).toBe(422);
    expect(res.json.errors[0].source.pointer).toBe('/require_two_factor');
    const wrong = await call('/auth/organization/security', { session: admin.session, method: 'PUT', body: { require_two_factor: 'yes' } });
    expect(wrong.status).toBe(422);
    expect(wrong.json.errors[0].source.pointer).toBe('/require_two_factor');
  });

  it('leads users without 2FA to enrolment (only the enrolment calls answer), API keys unaffected', async () => {
    const p = await person();
    const key = await makeKey(orgId);
    const on = await setRequired(admin.session, true);
    expect(on.status).toBe(200);
    expect(on.json.require_two_factor).toBe(true);
    expect(on.json.users_without_two_factor).toBeGreaterThan(0);
    const [entry] = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, orgId), eq(auditLog.action, 'update_security_settings')));
    expect(entry).toMatchObject({ actor_id: admin.id, details: { require_two_factor: true } });

    // The sign-in itself works (the session is needed to enrol), and says what is missing.
    const session = (await signIn(p.email)).json.token as string;
    const me = await call('/auth/session', { session });
    expect(me.status).toBe(200);
    expect(me.json.two_factor_enrolment_required).toBe(true);
    for (const path of ['/dashboards', '/reports', '/auth/me', '/auth/sessions', '/users']) {
      const res = await call(path, { session });
      expect(res.status, path).toBe(403);
      expect(res.json.errors[0].meta.reason, path).toBe('two_factor_enrolment_required');
    }
    // The session that was open before the change is held too.
    expect((await call('/dashboards', { session: p.session })).status).toBe(403);
    // Programs keep working.
    expect((await call('/dashboards', { key })).status).toBe(200);
    // The admin, enrolled, is not held.
    expect((await call('/dashboards', { session: admin.session })).status).toBe(200);

    await enrol(session);
    expect((await call('/auth/session', { session })).json.two_factor_enrolment_required).toBe(false);
    expect((await call('/dashboards', { session })).status).toBe(200);
    expect((await call('/dashboards', { session: p.session })).status).toBe(200);

    // Turned off: a user without 2FA works again.
    const q = await person();
    expect((await call('/dashboards', { session: q.session })).status).toBe(403);
    expect((await setRequired(admin.session, false)).json.require_two_factor).toBe(false);
    expect((await call('/dashboards', { session: q.session })).status).toBe(200);
  }, 120_000);

  it('does not hold single sign-on sessions (the identity provider checks them)', async () => {
    const p = await person();
    await db()
      .update(sessions)
      .set({ sign_in_method: 'oidc' })
      .where(eq(sessions.id, await sha256Hex(p.session)));
    await setRequired(admin.session, true);
    try {
      expect((await call('/dashboards', { session: p.session })).status).toBe(200);
      expect((await call('/auth/session', { session: p.session })).json.two_factor_enrolment_required).toBe(false);
    } finally {
      await setRequired(admin.session, false);
    }
  });

  it("never reads or changes another organization's setting", async () => {
    await setRequired(admin.session, true);
    try {
      const theirs = await call('/auth/organization/security', { session: otherAdmin.session });
      expect(theirs.json.require_two_factor).toBe(false);
    } finally {
      await setRequired(admin.session, false);
    }
  });
});

describe("an admin resets a user's two-factor authentication", () => {
  it('removes the app and recovery codes, ends their sessions, audits; with the requirement on they enrol again', async () => {
    const p = await person();
    const secret = await enrol(p.session);
    const res = await call(`/auth/users/${p.id}/two-factor/reset`, { session: admin.session, method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.json.sessions_ended).toBeGreaterThanOrEqual(1);
    const [row] = await db().select().from(users).where(eq(users.id, p.id));
    expect(row).toMatchObject({ otp_app_enabled: false, otp_secret_encrypted: null, otp_recovery_hashes: [] });
    expect((await call('/auth/session', { session: p.session })).status).toBe(401);
    const [entry] = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, orgId), eq(auditLog.action, 'reset_two_factor'), eq(auditLog.resource_id, p.id)));
    expect(entry).toMatchObject({ actor_type: 'user', actor_id: admin.id, resource_type: 'users' });

    await setRequired(admin.session, true);
    try {
      // Password only now (no code step), and the new session must enrol before anything else.
      const again = await signIn(p.email);
      expect(again.status).toBe(201);
      expect(again.json.two_factor_required).toBeUndefined();
      expect((await call('/dashboards', { session: again.json.token })).status).toBe(403);
      const newSecret = await enrol(again.json.token);
      expect(newSecret).not.toBe(secret);
      expect((await call('/dashboards', { session: again.json.token })).status).toBe(200);
    } finally {
      await setRequired(admin.session, false);
    }
  }, 120_000);

  it("is refused to API keys, non-admins, for oneself, without 2FA, and for another organization's user", async () => {
    const p = await person();
    await enrol(p.session);
    const key = await makeKey(orgId);
    const analyst = await makeUser(orgId, 'analyst');
    expect((await call(`/auth/users/${p.id}/two-factor/reset`, { key, method: 'POST' })).status).toBe(403);
    expect((await call(`/auth/users/${p.id}/two-factor/reset`, { session: analyst.session, method: 'POST' })).status).toBe(403);
    // Another organization's admin: not found, exactly as an id that does not exist.
    const theirs = await call(`/auth/users/${p.id}/two-factor/reset`, { session: otherAdmin.session, method: 'POST' });
    expect(theirs.status).toBe(404);
    expect((await call('/auth/users/usr_nope/two-factor/reset', { session: admin.session, method: 'POST' })).status).toBe(404);
    expect((await call(`/auth/users/${admin.id}/two-factor/reset`, { session: admin.session, method: 'POST' })).status).toBe(422);
    expect((await call(`/auth/users/${analyst.id}/two-factor/reset`, { session: admin.session, method: 'POST' })).status).toBe(422);
    const [row] = await db().select().from(users).where(eq(users.id, p.id));
    expect(row!.otp_app_enabled).toBe(true);
    expect((await call('/auth/session', { session: p.session })).status).toBe(200);
  }, 120_000);
});

describe('sessions: last_seen_at', () => {
  it('is written on use, at most once a minute, and listed', async () => {
    const p = await person();
    const id = await sha256Hex(p.session);
    await call('/auth/session', { session: p.session });
    const first = await eventually(async () => (await db().select().from(sessions).where(eq(sessions.id, id)))[0]?.last_seen_at, 'last_seen_at');
    // Within the minute: not written again.
    for (let i = 0; i < 3; i++) await call('/auth/session', { session: p.session });
    await new Promise((r) => setTimeout(r, 300));
    const [same] = await db().select().from(sessions).where(eq(sessions.id, id));
    expect(same!.last_seen_at!.getTime()).toBe(first.getTime());
    // Older than a minute: written on the next request.
    const old = new Date(Date.now() - 5 * 60_000);
    await db().update(sessions).set({ last_seen_at: old }).where(eq(sessions.id, id));
    await call('/auth/session', { session: p.session });
    const later = await eventually(async () => {
      const [s] = await db().select().from(sessions).where(eq(sessions.id, id));
      return s!.last_seen_at!.getTime() > old.getTime() + 60_000 ? s!.last_seen_at : undefined;
    }, 'a newer last_seen_at');
    expect(later.getTime()).toBeGreaterThan(first.getTime() - 1);
    const list = await call('/auth/sessions', { session: p.session });
    const mine = list.json.data.find((s: { current: boolean }) => s.current);
    expect(mine.last_seen_at).toBe(later.toISOString());
  });
});

describe('the audit log', () => {
  it('records sign-in, failed sign-in (password and code), 2FA on and off, password change, sessions ended', async () => {
    const p = await person();
    expect((await signIn(p.email, 'not the password')).status).toBe(401);
    const secret = await enrol(p.session);
    const recovery = lastRecoveryCodes;
    const first = await signIn(p.email);
    expect((await call('/auth/sessions/two-factor', { method: 'POST', body: { challenge: first.json.challenge, code: 'abcdef' } })).status).toBe(422);
    const session = await signInWithCode(p.email, secret);
    expect((await call('/auth/two-factor/disable', { session, method: 'POST', body: { current_password: PASSWORD, recovery_code: recovery[0] } })).status).toBe(
      204,
    );
    expect(
      (await call('/auth/password', { session, method: 'POST', body: { current_password: PASSWORD, new_password: 'another long password' } })).status,
    ).toBe(204);
    await signIn(p.email, 'another long password');
    expect((await call('/auth/sessions/others', { session, method: 'DELETE' })).json.ended).toBe(1);

    const actions = await eventually(async () => {
      const rows = await db()
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.organization_id, orgId), eq(auditLog.actor_id, p.id)));
      const got = rows.map((r) => `${r.action}${r.action === 'sign_in_failed' ? `:${(r.details as { reason: string }).reason}` : ''}`);
      return got.includes('sign_in_failed:password') && got.includes('sign_in_failed:two_factor_code') ? got : undefined;
    }, 'the failed sign-ins');
    for (const a of [
      'sign_in',
      'sign_in_failed:password',
      'sign_in_failed:two_factor_code',
      'enable_two_factor',
      'disable_two_factor',
      'change_password',
      'end_other_sessions',
    ]) {
      expect(actions, a).toContain(a);
    }
  }, 120_000);

  it('is read by admins only, filtered by action, actor and dates, paged', async () => {
    const p = await person();
    await signIn(p.email);
    await signIn(p.email);
    const key = await makeKey(orgId);
    const analyst = await makeUser(orgId, 'analyst');
    expect((await call('/auth/audit-log', { key })).status).toBe(403);
    expect((await call('/auth/audit-log', { session: analyst.session })).status).toBe(403);

    const all = await call('/auth/audit-log', { session: admin.session });
    expect(all.status).toBe(200);
    expect(all.json.data.length).toBeGreaterThan(3);
    const ids = all.json.data.map((e: { id: string }) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const byActor = await call(`/auth/audit-log?action=sign_in&actor=${encodeURIComponent(p.email)}`, { session: admin.session });
    expect(byActor.json.data).toHaveLength(3);
    for (const e of byActor.json.data) expect(e).toMatchObject({ action: 'sign_in', actor: { type: 'user', id: p.id, email: p.email, name: 'Grace Hopper' } });
    expect((await call(`/auth/audit-log?actor=${p.id}&action=sign_in`, { session: admin.session })).json.data).toHaveLength(3);

    const page1 = await call(`/auth/audit-log?actor=${p.id}&action=sign_in&limit=2`, { session: admin.session });
    expect(page1.json.data).toHaveLength(2);
    expect(page1.json.meta.next_before).toBe(page1.json.data[1].id);
    const page2 = await call(`/auth/audit-log?actor=${p.id}&action=sign_in&limit=2&before=${page1.json.meta.next_before}`, { session: admin.session });
    expect(page2.json.data).toHaveLength(1);
    expect(page2.json.meta.next_before).toBeNull();

    const today = new Date().toISOString().slice(0, 10);
    expect((await call(`/auth/audit-log?actor=${p.id}&action=sign_in&from=${today}&to=${today}`, { session: admin.session })).json.data).toHaveLength(3);
    expect((await call(`/auth/audit-log?actor=${p.id}&from=2020-01-01&to=2020-01-31`, { session: admin.session })).json.data).toHaveLength(0);

    // Another organization's admin sees none of it, even when naming this organization's user.
    const theirs = await call(`/auth/audit-log?actor=${p.id}`, { session: otherAdmin.session });
    expect(theirs.status).toBe(200);
    expect(theirs.json.data).toHaveLength(0);
    const byEmail = await call(`/auth/audit-log?actor=${encodeURIComponent(p.email)}`, { session: otherAdmin.session });
    expect(byEmail.json.data).toHaveLength(0);
  }, 120_000);

  it('refuses bad filters with a 400 naming the parameter', async () => {
    for (const [query, parameter] of [
      ['from=yesterday', 'from'],
      ['to=2026-13-45', 'to'],
      ['limit=0', 'limit'],
      ['limit=9999', 'limit'],
      ['before=-1', 'before'],
      ['action=DROP%20TABLE', 'action'],
      ['surprise=1', ''],
    ] as const) {
      const res = await call(`/auth/audit-log?${query}`, { session: admin.session });
      expect(res.status, query).toBe(400);
      expect(res.json.errors[0].code, query).toBe('invalid_query_parameter');
      if (parameter) expect(res.json.errors[0].source.parameter, query).toBe(parameter);
    }
  });
});
