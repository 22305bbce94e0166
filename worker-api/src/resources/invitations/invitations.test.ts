import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { randomString, sha256Hex, verifyPassword } from '@cairn/core';
import { auditLog, users } from '@cairn/db';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { call, db, makeOrg, makeUser } from '../../../test/fixtures.ts';

let org: CreateOrganizationResult;
let admin: { id: string; session: string };

/** An invited user with a known token (the e-mail holds it; here it is written straight to the row). */
async function invite(role: 'viewer' | 'analyst' = 'viewer', sentDaysAgo = 0) {
  const res = await call('/users/invite', { session: admin.session, body: { email: `inv-${randomString(8).toLowerCase()}@example.test`, role } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  const id = res.json.data.id as string;
  const token = randomString(40);
  await db()
    .update(users)
    .set({
      invitation_token_hash: await sha256Hex(token),
      invitation_created_at: new Date(Date.now() - sentDaysAgo * 86_400_000),
    })
    .where(eq(users.id, id));
  return { id, token, email: res.json.data.attributes.email as string };
}

const accept = (token: string, body: unknown) => call(`/auth/invitations/${token}`, { method: 'POST', body });

beforeAll(async () => {
  org = await makeOrg('invitations');
  admin = await makeUser(org.organization.id, 'admin');
});

describe('GET /auth/invitations/{token}', () => {
  it('describes a pending invitation without any credential', async () => {
    const inv = await invite('analyst');
    const res = await call(`/auth/invitations/${inv.token}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      email: inv.email,
      role: 'analyst',
      organization: { name: org.organization.name, region: 'eu' },
      invited_by: 'Test admin',
      min_password_length: 8,
    });
    expect(Date.parse(res.json.expires_at) - Date.parse(res.json.invitation_created_at)).toBe(14 * 86_400_000);
  });

  it('answers 404 for unknown, malformed and revoked tokens, and 422 for an expired one', async () => {
    expect((await call(`/auth/invitations/${randomString(40)}`)).status).toBe(404);
    const bad = await call('/auth/invitations/not%20a%20token');
    expect(bad.status).toBe(404);
    expect(bad.json.errors[0]).toMatchObject({ code: 'not_found', source: { parameter: 'token' } });
    const revoked = await invite();
    expect((await call(`/users/invite/${revoked.id}`, { method: 'DELETE', session: admin.session })).status).toBe(204);
    expect((await call(`/auth/invitations/${revoked.token}`)).status).toBe(404);
    const old = await invite('viewer', 15);
    const expired = await call(`/auth/invitations/${old.token}`);
    expect(expired.status).toBe(422);
    expect(expired.json.errors[0]).toMatchObject({ code: 'invalid_state', meta: { reason: 'invitation_expired' } });
  });
});

describe('POST /auth/invitations/{token}', () => {
  it('activates the user with name and hashed password and signs them in', async () => {
    const inv = await invite('analyst');
    const res = await accept(inv.token, { password: 'a long passphrase', firstname: ' Ada ', lastname: 'Lovelace' });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toMatchObject({
      token: expect.stringMatching(/^eu_[0-9A-Za-z]{48}$/),
      user: { id: inv.id, email: inv.email, firstname: 'Ada', lastname: 'Lovelace', role: 'analyst' },
      organization: { id: org.organization.id },
    });
    const [row] = await db().select().from(users).where(eq(users.id, inv.id));
    expect(row!.invitation_accepted_at).not.toBeNull();
    expect(row!.invitation_token_hash).toBeNull();
    expect(row!.password_hash).not.toContain('a long passphrase');
    expect(await verifyPassword('a long passphrase', row!.password_hash!)).toBe(true);

    // The session works, and the user appears as active to admins.
    const me = await call('/auth/session', { session: res.json.token });
    expect(me.json.user).toMatchObject({ id: inv.id, role: 'analyst' });
    const listed = await call(`/users/${inv.id}`, { session: admin.session });
    expect(listed.json.data.attributes).toMatchObject({ status: 'active', firstname: 'Ada' });
    // Signing in with the new password works too.
    const signIn = await call('/auth/sessions', { body: { email: inv.email, password: 'a long passphrase' } });
    expect(signIn.status).toBe(201);
    const audited = await db().select().from(auditLog).where(eq(auditLog.resource_id, inv.id));
    expect(audited.map((a) => a.action)).toContain('accept_invitation');

    // The link works once.
    const again = await accept(inv.token, { password: 'another passphrase', firstname: 'Eve' });
    expect(again.status).toBe(404);
    // Nor can a resend or revoke touch the accepted user any more.
    expect((await call(`/users/invite/${inv.id}`, { method: 'POST', session: admin.session })).status).toBe(422);
  });

  it('validates the password, the names and the body', async () => {
    const inv = await invite();
    const short = await accept(inv.token, { password: 'short', firstname: 'Bo' });
    expect(short.status).toBe(422);
    expect(short.json.errors[0]).toMatchObject({ code: 'invalid_attribute', source: { pointer: '/password' } });
    expect(short.json.errors[0].detail).toContain('8 characters');
    const noName = await accept(inv.token, { password: 'long enough pw', firstname: '   ' });
    expect(noName.json.errors[0].source.pointer).toBe('/firstname');
    const missing = await accept(inv.token, { firstname: 'Bo' });
    expect(missing.json.errors[0]).toMatchObject({ code: 'missing_attribute', source: { pointer: '/password' } });
    const extra = await accept(inv.token, { password: 'long enough pw', firstname: 'Bo', role: 'admin' });
    expect(extra.status).toBe(422);
    expect(extra.json.errors[0].code).toBe('unknown_attribute');
    const form = await call(`/auth/invitations/${inv.token}`, { method: 'POST', rawBody: 'password=x', contentType: 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    const broken = await call(`/auth/invitations/${inv.token}`, { method: 'POST', rawBody: '{', contentType: 'application/json' });
    expect(broken.status).toBe(400);
    // None of that used the invitation up.
    expect((await call(`/auth/invitations/${inv.token}`)).status).toBe(200);
  });

  it('refuses an expired invitation and one whose user was deactivated', async () => {
    const old = await invite('viewer', 20);
    expect((await accept(old.token, { password: 'long enough pw', firstname: 'Old' })).status).toBe(422);
    const inv = await invite();
    await db().update(users).set({ deactivated_at: new Date() }).where(eq(users.id, inv.id));
    expect((await accept(inv.token, { password: 'long enough pw', firstname: 'Gone' })).status).toBe(404);
  });

  it('lets only one of two simultaneous acceptances win', async () => {
    const inv = await invite();
    const [a, b] = await Promise.all([
      accept(inv.token, { password: 'first passphrase', firstname: 'A' }),
      accept(inv.token, { password: 'second passphrase', firstname: 'B' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 404]);
  });
});

describe('inviting an address that has an account elsewhere', () => {
  it('answers exactly as any other invitation; the owner is told only on accepting, and keeps the account', async () => {
    const elsewhere = await makeOrg('invitations elsewhere');
    const fresh = await call('/users/invite', { session: admin.session, body: { email: `new-${randomString(8).toLowerCase()}@example.test`, role: 'viewer' } });
    const known = await call('/users/invite', { session: admin.session, body: { email: elsewhere.admin.email, role: 'viewer' } });
    expect(known.status, JSON.stringify(known.json)).toBe(fresh.status);
    expect(Object.keys(known.json.data.attributes).sort()).toEqual(Object.keys(fresh.json.data.attributes).sort());
    expect(known.json.data.attributes.status).toBe(fresh.json.data.attributes.status);
    expect(known.json.meta).toEqual(fresh.json.meta);
    expect((await call(`/users/${known.json.data.id}`, { session: admin.session })).status).toBe(200);
    // The same address twice in this organization is still a 409 (the admin sees the first one anyway).
    expect((await call('/users/invite', { session: admin.session, body: { email: elsewhere.admin.email, role: 'viewer' } })).status).toBe(409);

    // The account's owner still signs in to their own organization.
    const signIn = await call('/auth/sessions', {
      body: { email: elsewhere.admin.email, password: 'correct horse battery' },
      headers: { 'cf-connecting-ip': '198.51.100.3' },
    });
    expect(signIn.status).toBe(201);
    expect(signIn.json.user.id).toBe(elsewhere.admin.id);

    // Accepting is refused to whoever holds the invitation e-mail, and changes nothing.
    const token = randomString(40);
    await db()
      .update(users)
      .set({ invitation_token_hash: await sha256Hex(token) })
      .where(eq(users.id, known.json.data.id));
    const taken = await accept(token, { password: 'another long password', firstname: 'X' });
    expect(taken.status).toBe(409);
    expect(taken.json.errors[0].meta.reason).toBe('email_has_account');
    const [still] = await db().select().from(users).where(eq(users.id, elsewhere.admin.id));
    expect(still!.organization_id).toBe(elsewhere.organization.id);
  });

  it('two organizations may invite the same new address; the first acceptance wins', async () => {
    const other = await makeOrg('invitations other');
    const otherAdmin = await makeUser(other.organization.id, 'admin');
    const email = `both-${randomString(8).toLowerCase()}@example.test`;
    const tokens: string[] = [];
    for (const session of [admin.session, otherAdmin.session]) {
      const res = await call('/users/invite', { session, body: { email, role: 'viewer' } });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      const token = randomString(40);
      await db()
        .update(users)
        .set({ invitation_token_hash: await sha256Hex(token) })
        .where(eq(users.id, res.json.data.id));
      tokens.push(token);
    }
    expect((await accept(tokens[0]!, { password: 'a long enough password', firstname: 'A' })).status).toBe(201);
    expect((await accept(tokens[1]!, { password: 'a long enough password', firstname: 'A' })).status).toBe(409);
  });
});
