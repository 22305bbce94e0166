/**
 * Two-factor authentication with an authenticator app: enrolment (POST /auth/two-factor, /confirm),
 * the code step of sign-in (POST /auth/sessions → challenge → POST /auth/sessions/two-factor),
 * recovery codes, and turning it off (POST /auth/two-factor/disable). Codes are computed with core's
 * TOTP from the secret the API answers; a code of the next step stands in for "30 s later".
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { env } from 'cloudflare:test';
import { signInChallenges, users } from '@cairn/db';
import { totpCode } from '@cairn/core';
import { openTotpSecret } from './two-factor.ts';
import { addUser, call, db, makeKey, makeOrg } from '../../test/fixtures.ts';

let orgId: string;
const PASSWORD = 'two factor pass';
const signIn = (email: string, password = PASSWORD) => call('/auth/sessions', { method: 'POST', body: { email, password } });
const secondStep = (body: Record<string, string>) => call('/auth/sessions/two-factor', { method: 'POST', body });
/** The code of the step `offset` steps from now. */
const code = (secret: string, offset = 0) => totpCode(secret, Date.now() + offset * 30_000);

async function person() {
  const { id, email } = await addUser(orgId, { role: 'analyst', firstname: 'Ada', password: PASSWORD });
  const { json } = await signIn(email);
  return { id, email, session: json.token as string };
}

/** A person with two-factor authentication on: their secret and recovery codes. */
async function enrolled() {
  const p = await person();
  const start = await call('/auth/two-factor', { session: p.session, method: 'POST' });
  const secret = start.json.secret as string;
  const confirmCode = await code(secret);
  const confirm = await call('/auth/two-factor/confirm', { session: p.session, method: 'POST', body: { code: confirmCode } });
  return { ...p, secret, confirmCode, recovery: confirm.json.recovery_codes as string[] };
}

beforeAll(async () => {
  orgId = (await makeOrg('two-factor')).organization.id;
});

describe('enrolment', () => {
  it('starts with a pending secret, refuses a wrong code, turns on with the right one', async () => {
    const p = await person();
    expect((await call('/auth/two-factor', { session: p.session })).json).toEqual({ enabled: false, pending: false, recovery_codes_left: 0 });
    const start = await call('/auth/two-factor', { session: p.session, method: 'POST' });
    expect(start.status).toBe(201);
    expect(start.json.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(start.json.otpauth_uri).toBe(
      `otpauth://totp/Cairn:${encodeURIComponent(p.email)}?secret=${start.json.secret}&issuer=Cairn&algorithm=SHA1&digits=6&period=30`,
    );
    expect((await call('/auth/two-factor', { session: p.session })).json).toMatchObject({ enabled: false, pending: true });
    // Not on yet: sign-in still needs the password only.
    expect((await signIn(p.email)).status).toBe(201);

    const wrong = await call('/auth/two-factor/confirm', {
      session: p.session,
      method: 'POST',
      body: { code: '000000' === (await code(start.json.secret)) ? '111111' : '000000' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.json.errors[0].source.pointer).toBe('/code');
    const ok = await call('/auth/two-factor/confirm', { session: p.session, method: 'POST', body: { code: await code(start.json.secret) } });
    expect(ok.status).toBe(200);
    expect(ok.json.recovery_codes).toHaveLength(10);
    expect(new Set(ok.json.recovery_codes).size).toBe(10);
    for (const r of ok.json.recovery_codes) expect(r).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect((await call('/auth/two-factor', { session: p.session })).json).toEqual({ enabled: true, pending: false, recovery_codes_left: 10 });
    expect((await call('/auth/two-factor', { session: p.session, method: 'POST' })).status).toBe(409);
  });

  it('keeps the secret sealed and recovery codes hashed in the row; otp_app_enabled follows', async () => {
    const p = await enrolled();
    const [row] = await db().select().from(users).where(eq(users.id, p.id));
    expect(row!.otp_app_enabled).toBe(true);
    expect(row!.otp_secret_encrypted).toBeTruthy();
    expect(JSON.stringify(row)).not.toContain(p.secret);
    for (const r of p.recovery) expect(JSON.stringify(row)).not.toContain(r);
    expect(row!.otp_recovery_hashes).toHaveLength(10);
    expect(await openTotpSecret(row!.otp_secret_encrypted!, p.id, env.SECRET_KEY)).toBe(p.secret);
    // Sealed for this user only: the same ciphertext does not open for another.
    await expect(openTotpSecret(row!.otp_secret_encrypted!, 'someone-else', env.SECRET_KEY)).rejects.toThrow();
  });

  it('refuses API keys with 403', async () => {
    const key = await makeKey(orgId);
    for (const [path, method] of [
      ['/auth/two-factor', 'GET'],
      ['/auth/two-factor', 'POST'],
      ['/auth/two-factor/confirm', 'POST'],
      ['/auth/two-factor/disable', 'POST'],
    ] as const) {
      const body = path.endsWith('confirm') ? { code: '123456' } : path.endsWith('disable') ? { current_password: 'x', code: '123456' } : undefined;
      const res = await call(path, { key, method, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json.errors[0].detail).toMatch(/API key/);
      expect((await call(path, { method, body })).status).toBe(401);
    }
  });
});

describe('sign-in with two-factor authentication', () => {
  it('the password answers a challenge, not a session; the code starts the session; a replayed code is refused', async () => {
    const p = await enrolled();
    const first = await signIn(p.email);
    expect(first.status).toBe(200);
    expect(first.json.token).toBeUndefined();
    expect(first.json.two_factor_required).toBe(true);
    expect(typeof first.json.challenge).toBe('string');
    expect(new Date(first.json.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    expect((await signIn(p.email, 'wrong password')).status).toBe(401);

    const missing = await secondStep({ challenge: first.json.challenge });
    expect(missing.status).toBe(422);
    expect(missing.json.errors[0].source.pointer).toBe('/code');
    const bad = await secondStep({ challenge: first.json.challenge, code: '12345x' });
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].source.pointer).toBe('/code');
    // The code used to confirm the enrolment (this step) is spent; the next step's code works.
    const replayOfConfirm = await secondStep({ challenge: first.json.challenge, code: p.confirmCode });
    expect(replayOfConfirm.status).toBe(422);
    const next = await code(p.secret, 1);
    const ok = await secondStep({ challenge: first.json.challenge, code: next });
    expect(ok.status).toBe(201);
    expect(ok.json.user.id).toBe(p.id);
    expect((await call('/auth/session', { session: ok.json.token })).status).toBe(200);

    // The challenge worked once; a new one with the same code is refused (replay).
    expect((await secondStep({ challenge: first.json.challenge, code: next })).status).toBe(401);
    const again = await signIn(p.email);
    const replay = await secondStep({ challenge: again.json.challenge, code: next });
    expect(replay.status).toBe(422);
    expect(replay.json.errors[0].source.pointer).toBe('/code');
    expect((await secondStep({ challenge: 'not-a-challenge', code: next })).json.errors[0].source.pointer).toBe('/challenge');
  });

  it('a recovery code works once', async () => {
    const p = await enrolled();
    const a = await signIn(p.email);
    const ok = await secondStep({ challenge: a.json.challenge, recovery_code: p.recovery[0]!.toUpperCase() });
    expect(ok.status).toBe(201);
    expect((await call('/auth/two-factor', { session: ok.json.token })).json.recovery_codes_left).toBe(9);
    const b = await signIn(p.email);
    const reused = await secondStep({ challenge: b.json.challenge, recovery_code: p.recovery[0]! });
    expect(reused.status).toBe(422);
    expect(reused.json.errors[0].source.pointer).toBe('/recovery_code');
    expect((await secondStep({ challenge: b.json.challenge, recovery_code: p.recovery[1]! })).status).toBe(201);
  });

  it('wrong codes are rate-limited like passwords', async () => {
    const p = await enrolled();
    const { json } = await signIn(p.email);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await secondStep({ challenge: json.challenge, code: '99999x' })).status);
    expect(statuses.slice(0, 9).every((s) => s === 422)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it('a challenge expires after 5 minutes', async () => {
    const p = await enrolled();
    const { json } = await signIn(p.email);
    await db()
      .update(signInChallenges)
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where(eq(signInChallenges.user_id, p.id));
    const late = await secondStep({ challenge: json.challenge, code: await code(p.secret, 1) });
    expect(late.status).toBe(401);
    expect(late.json.errors[0].meta.reason).toBe('challenge_expired');
  });
});

describe('turning it off', () => {
  it('needs the current password and a code or recovery code', async () => {
    const p = await enrolled();
    const disable = (body: Record<string, string>) => call('/auth/two-factor/disable', { session: p.session, method: 'POST', body });
    const noCode = await disable({ current_password: PASSWORD });
    expect(noCode.status).toBe(422);
    expect(noCode.json.errors[0].source.pointer).toBe('/code');
    const wrongPw = await disable({ current_password: 'nope', code: await code(p.secret, 1) });
    expect(wrongPw.status).toBe(422);
    expect(wrongPw.json.errors[0].source.pointer).toBe('/current_password');
    const wrongCode = await disable({ current_password: PASSWORD, recovery_code: 'aaaaa-aaaaa' });
    expect(wrongCode.status).toBe(422);
    expect(wrongCode.json.errors[0].source.pointer).toBe('/recovery_code');
    expect((await disable({ current_password: PASSWORD, code: await code(p.secret, 1) })).status).toBe(204);
    const [row] = await db().select().from(users).where(eq(users.id, p.id));
    expect(row).toMatchObject({ otp_app_enabled: false, otp_secret_encrypted: null, otp_recovery_hashes: [] });
    expect((await signIn(p.email)).status).toBe(201);
  });

  it('works with a recovery code too', async () => {
    const p = await enrolled();
    const res = await call('/auth/two-factor/disable', {
      session: p.session,
      method: 'POST',
      body: { current_password: PASSWORD, recovery_code: p.recovery[3]! },
    });
    expect(res.status).toBe(204);
    expect((await call('/auth/two-factor', { session: p.session })).json.enabled).toBe(false);
  });
});
