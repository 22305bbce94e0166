import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { ApiError, parseApiKey, permissionsForRole, sha256Hex, timingSafeEqual, tokenRegion, wrongRegion } from '@cairn/core';
import { apiKeys, organizations, sessions, users } from '@cairn/db';
import type { AppEnv } from '../env.ts';
import type { Principal } from './principal.ts';
import { BURST_WAIT_MS, waitFor } from '../lib/wait-for.ts';
import { clientAddress, FailureThrottle } from './failures.ts';
import { mustEnrol, refuseUntilEnrolled } from './two-factor-rule.ts';
import { settingsOf } from '../config.ts';

/**
 * Resolves `Authorization: Api <key>` or `Authorization: Session <token>` into a Principal.
 * 401 for a missing, malformed, unknown or disabled key, or an expired session.
 */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header('authorization');
  if (!header) {
    throw new ApiError('unauthorized', 'Send your API key as "Authorization: Api <key>".', {
      source: { header: 'Authorization' },
    });
  }
  const [scheme, ...rest] = header.trim().split(/\s+/);
  const credential = rest.join(' ');
  const kind = scheme?.toLowerCase();
  let principal: Principal;
  if (kind === 'api') principal = await fromApiKey(c, credential);
  else if (kind === 'session') principal = await fromSession(c, credential);
  else {
    throw new ApiError('unauthorized', `Unknown authorization scheme "${scheme}"; use "Api <key>".`, {
      source: { header: 'Authorization' },
    });
  }
  c.set('principal', principal);
  await next();
};

/**
 * Valid keys are remembered by this isolate for a moment (AUTH_CACHE_MS, default 2000 ms), so a busy
 * program does not cost a database round trip per request. Changing or deleting a key through the API
 * forgets it here at once; elsewhere a disabled key stops working within that moment (at most twice it,
 * when a lookup is already under way for a busy key).
 */
const keyCache = new Map<string, { secret: string; principal: Principal; region: string; expires: number; refreshingSince: number }>();

/** Keys being looked up by a request of this isolate, and since when. */
const keyLookups = new Map<string, number>();

export function forgetApiKey(keyId: string): void {
  keyCache.delete(keyId);
}

/** Unknown or wrong API keys per client address: 20, then one every 3 s (auth/failures.ts). */
const keyFailures = new FailureThrottle('apikey-failures', 1 / 3, 20, 'failed API keys from your address');

async function fromApiKey(c: Parameters<MiddlewareHandler<AppEnv>>[0], credential: string): Promise<Principal> {
  const address = clientAddress(c.req.header('cf-connecting-ip'));
  keyFailures.check(address);
  const parsed = parseApiKey(credential);
  // Built only when thrown: an Error captures a stack trace, which costs more than the rest of a cache hit.
  const invalid = () => new ApiError('invalid_api_key', 'The API key is not valid.', { source: { header: 'Authorization' } });
  if (!parsed) return keyFailures.fail(c.env.RATE_LIMITER, address, invalid());
  // A key that names the other region lives in that region's database, which this server cannot read (D53).
  if (parsed.region && parsed.region !== c.env.REGION) throw wrongRegion(c.env, parsed.region, c.env.REGION, 'api');
  let cached = keyCache.get(parsed.keyId);
  // Not known yet, and another request is looking this key up right now: wait for its answer rather
  // than send the database one lookup per request of a burst (lib/wait-for.ts).
  const since = keyLookups.get(parsed.keyId);
  if (!cached && since !== undefined && Date.now() - since < BURST_WAIT_MS) {
    // Ends when the other lookup has ended (it may have found nothing: then this one looks too).
    const found = await waitFor(() => keyCache.get(parsed.keyId) ?? (keyLookups.has(parsed.keyId) ? undefined : false));
    cached = found || undefined;
  }
  // The secret this isolate verified a moment ago, compared in constant time: no digest per request.
  if (cached && timingSafeEqual(parsed.secret, cached.secret)) {
    const now = Date.now();
    const fresh =
      cached.expires > now ||
      // Expired, and another request is looking the key up again: that one answer is enough (the others
      // would all ask the database at once). Bounded: at most one more TTL.
      (now - cached.refreshingSince < 1000 && now < cached.expires + settingsOf(c.env).authCacheMs);
    if (fresh) return noteKeyUse(c, inRegion(c, cached.region, cached.principal));
    cached.refreshingSince = now;
  }
  const hash = await sha256Hex(parsed.secret);
  if (!cached && settingsOf(c.env).authCacheMs > 0) keyLookups.set(parsed.keyId, Date.now());
  let row: typeof apiKeys.$inferSelect | undefined;
  let region = '';
  try {
    const [found] = await c
      .get('db')
      .select({ key: apiKeys, region: organizations.region })
      .from(apiKeys)
      .innerJoin(organizations, eq(organizations.id, apiKeys.organization_id))
      .where(eq(apiKeys.key_id, parsed.keyId))
      .limit(1);
    row = found?.key;
    region = found?.region ?? '';
  } finally {
    keyLookups.delete(parsed.keyId);
  }
  // The hash is computed either way, so an unknown key id costs the same as a wrong secret.
  if (!row || !timingSafeEqual(hash, row.secret_hash)) return keyFailures.fail(c.env.RATE_LIMITER, address, invalid());
  if (!row.enabled) {
    throw new ApiError('api_key_disabled', 'This API key is disabled; an admin can enable it again.', {
      source: { header: 'Authorization' },
    });
  }
  const principal: Principal = { kind: 'api_key', organizationId: row.organization_id, apiKeyId: row.id, grants: row.permissions };
  const ttl = settingsOf(c.env).authCacheMs;
  if (ttl > 0) {
    keyCache.set(parsed.keyId, { secret: parsed.secret, principal, region, expires: Date.now() + ttl, refreshingSince: 0 });
    if (keyCache.size > 10_000) keyCache.delete(keyCache.keys().next().value!);
  }
  return noteKeyUse(c, inRegion(c, region, principal), row.last_used_at);
}

/** How often a key's last_used_at is written at most. */
const LAST_USED_EVERY_MS = 60_000;

/** When this isolate last wrote (or saw) each key's last_used_at. */
const lastUseNoted = new Map<string, number>();

/**
 * Records that the key was used: at most one write a minute per key. This isolate skips keys it wrote
 * (or read as written) less than a minute ago; the update's condition holds the minute across isolates.
 * The write runs after the answer and never fails the request; updated_at is left as it is.
 */
function noteKeyUse(c: Parameters<MiddlewareHandler<AppEnv>>[0], principal: Principal, storedLastUse?: Date | null): Principal {
  if (principal.kind !== 'api_key') return principal;
  const id = principal.apiKeyId;
  const now = Date.now();
  const seen = Math.max(lastUseNoted.get(id) ?? 0, storedLastUse?.getTime() ?? 0);
  if (now - seen < LAST_USED_EVERY_MS) {
    lastUseNoted.set(id, seen);
    return principal;
  }
  lastUseNoted.set(id, now);
  if (lastUseNoted.size > 10_000) lastUseNoted.delete(lastUseNoted.keys().next().value!);
  const write = c
    .get('db')
    .update(apiKeys)
    .set({ last_used_at: new Date(now), updated_at: sql`${apiKeys.updated_at}` })
    .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.last_used_at), lt(apiKeys.last_used_at, new Date(now - LAST_USED_EVERY_MS)))))
    .then(
      () => undefined,
      (err: unknown) => console.error(`last_used_at of API key ${id} not written`, err),
    );
  c.executionCtx.waitUntil(write);
  return principal;
}

/**
 * Each region's API server serves only the organizations of its region: a right key or session of
 * another region's organization is a 403 wrong_region naming that region's base URL. Keys and sessions
 * name their region (D53), so one of the other region is refused before any lookup (its database is
 * not this server's); this check stays for older credentials and a database shared by both regions.
 */
function inRegion(c: Parameters<MiddlewareHandler<AppEnv>>[0], region: string, principal: Principal): Principal {
  if (region !== c.env.REGION) throw wrongRegion(c.env, region, c.env.REGION, 'api');
  return principal;
}

async function fromSession(c: Parameters<MiddlewareHandler<AppEnv>>[0], token: string): Promise<Principal> {
  const invalid = () =>
    new ApiError('unauthorized', 'The session has expired; sign in again.', {
      source: { header: 'Authorization' },
    });
  if (!/^(?:(?:eu|us)_)?[0-9A-Za-z]{20,100}$/.test(token)) throw invalid();
  // A session of the other region lives in that region's database (D53).
  const home = tokenRegion(token);
  if (home && home !== c.env.REGION) throw wrongRegion(c.env, home, c.env.REGION, 'api');
  const id = await sha256Hex(token);
  const [row] = await c
    .get('db')
    .select({ session: sessions, user: users, region: organizations.region, settings: organizations.settings })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.user_id))
    .innerJoin(organizations, eq(organizations.id, users.organization_id))
    .where(and(eq(sessions.id, id), gt(sessions.expires_at, new Date())))
    .limit(1);
  if (!row || row.user.deactivated_at) throw invalid();
  noteSessionSeen(c, row.session);
  // The organization requires two-factor authentication: until enrolled, only the enrolment (D65).
  if (mustEnrol(row.settings, row.user, row.session)) refuseUntilEnrolled(c.req.method, c.req.path);
  return inRegion(c, row.region, {
    kind: 'user',
    organizationId: row.user.organization_id,
    userId: row.user.id,
    role: row.user.role,
    grants: permissionsForRole(row.user.role),
    sessionId: row.session.id,
  });
}

/**
 * A session's last_seen_at, written at most once a minute: only when the stored time is older than that
 * (read with the session anyway, so a fresh one costs nothing), after the answer, never failing it. The
 * update's condition holds the minute when several requests of the session arrive at once.
 */
function noteSessionSeen(c: Parameters<MiddlewareHandler<AppEnv>>[0], session: typeof sessions.$inferSelect): void {
  const now = Date.now();
  if (session.last_seen_at && now - session.last_seen_at.getTime() < LAST_USED_EVERY_MS) return;
  const write = c
    .get('db')
    .update(sessions)
    .set({ last_seen_at: new Date(now) })
    .where(and(eq(sessions.id, session.id), or(isNull(sessions.last_seen_at), lt(sessions.last_seen_at, new Date(now - LAST_USED_EVERY_MS)))))
    .then(
      () => undefined,
      (err: unknown) => console.error('last_seen_at of a session not written', err),
    );
  c.executionCtx.waitUntil(write);
}
