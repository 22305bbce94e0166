/**
 * Two-factor authentication with an authenticator app (TOTP, core/src/totp.ts): the sealed secret,
 * recovery codes, and checking a code of a user — each accepted code or recovery code works once.
 *
 * The secret must be read back to check codes, so it is sealed with AES-GCM under a key derived by
 * HKDF-SHA-256 from the API's SECRET_KEY (its own `info`, so it is never the key of other sealed
 * secrets); the user id is the additional data, so a sealed secret copied to another row does not open.
 */
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { ApiError, base64url, fromBase64url, sha256Hex, verifyTotp } from '@cairn/core';
import { users } from '@cairn/db';
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import type { PooledDb } from '../lib/db.ts';
import { errorResponse } from '../lib/errors.ts';
import { rateLimiterStub } from '../durable/stubs.ts';

const enc = new TextEncoder();
const RECOVERY_CODE_COUNT = 10;
/** How long the code step of a sign-in may wait after the password. */
export const CHALLENGE_MINUTES = 5;

async function sealKey(secretKey: string): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey('raw', enc.encode(secretKey), 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: enc.encode('cairn'), info: enc.encode('cairn:totp-secret:v1') },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

export async function sealTotpSecret(secret: string, userId: string, secretKey: string): Promise<string> {
  const iv = new Uint8Array(12);
  crypto.getRandomValues(iv);
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: enc.encode(userId) }, await sealKey(secretKey), enc.encode(secret));
  return `t1.${base64url(iv)}.${base64url(new Uint8Array(ct))}`;
}

export async function openTotpSecret(sealed: string, userId: string, secretKey: string): Promise<string> {
  const [v, iv, ct] = sealed.split('.');
  if (v !== 't1' || !iv || !ct) throw new Error('unknown sealed TOTP secret format');
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: fromBase64url(iv) as BufferSource, additionalData: enc.encode(userId) },
    await sealKey(secretKey),
    fromBase64url(ct) as BufferSource,
  );
  return new TextDecoder().decode(plain);
}

// 32 letters and digits without look-alikes (no l, o, 0, 1): a byte modulo 32 has no bias.
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** Ten new recovery codes (`xxxxx-xxxxx`, 50 random bits each) and the hashes to store. */
export async function newRecoveryCodes(): Promise<{ codes: string[]; hashes: string[] }> {
  const codes: string[] = [];
  for (let n = 0; n < RECOVERY_CODE_COUNT; n++) {
    const bytes = new Uint8Array(10);
    crypto.getRandomValues(bytes);
    const s = Array.from(bytes, (b) => RECOVERY_ALPHABET[b % 32]).join('');
    codes.push(`${s.slice(0, 5)}-${s.slice(5)}`);
  }
  return { codes, hashes: await Promise.all(codes.map(recoveryHash)) };
}

/** Recovery codes are compared without case, spaces or dashes. */
function recoveryHash(code: string): Promise<string> {
  return sha256Hex(`cairn-recovery:${code.toLowerCase().replace(/[\s-]/g, '')}`);
}

type UserRow = typeof users.$inferSelect;

/**
 * Checks an authenticator code of a user with a (pending or active) secret and, if right, records
 * its step so the same code is refused next time (the update only wins if the step is newer, so two
 * requests with one code cannot both pass).
 */
export async function useTotpCode(db: PooledDb, secretKey: string, user: UserRow, code: string): Promise<boolean> {
  if (!user.otp_secret_encrypted) return false;
  const secret = await openTotpSecret(user.otp_secret_encrypted, user.id, secretKey);
  const step = await verifyTotp(secret, code, { lastUsedStep: user.otp_last_step });
  if (step === null) return false;
  const won = await db
    .update(users)
    .set({ otp_last_step: step })
    .where(and(eq(users.id, user.id), or(isNull(users.otp_last_step), lt(users.otp_last_step, step))))
    .returning({ id: users.id });
  return won.length === 1;
}

/** Uses up a recovery code: removed from the stored hashes in one statement, so it works once. */
export async function useRecoveryCode(db: PooledDb, userId: string, code: string): Promise<boolean> {
  const hash = await recoveryHash(code);
  const won = await db
    .update(users)
    .set({ otp_recovery_hashes: sql`${users.otp_recovery_hashes} - ${hash}::text` })
    .where(and(eq(users.id, userId), sql`${users.otp_recovery_hashes} @> jsonb_build_array(${hash}::text)`))
    .returning({ id: users.id });
  return won.length === 1;
}

/**
 * Code guessing is slowed per user like password guessing: 10 attempts, then one more every 30 s.
 * Every attempt counts (a right code too), so a limited caller cannot keep trying. Answers the 429
 * to return, or null.
 */
export async function codeGate(c: Context<AppEnv>, userId: string): Promise<Response | null> {
  const limiter = rateLimiterStub(c.env, `otp:${userId}`);
  const gate = await limiter.take(1 / 30, 10);
  if (gate.allowed) return null;
  return errorResponse(c, new ApiError('rate_limited', `Too many attempts with codes; try again in ${gate.retryAfter} s.`), {
    'retry-after': String(gate.retryAfter),
  });
}

export const wrongCode = (field: 'code' | 'recovery_code') =>
  new ApiError(
    'invalid_attribute',
    field === 'code'
      ? 'code: is not the current code of your authenticator app (or was used already).'
      : 'recovery_code: is not one of your unused recovery codes.',
    { source: { pointer: `/${field}` } },
  );
