import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Env } from '../env.ts';
import type { Principal } from '../auth/principal.ts';
import { BURST_WAIT_MS, waitFor } from './wait-for.ts';
import { poolStatement, usesDbPool } from './db.ts';
import { anyDbPoolStub } from '../durable/stubs.ts';
import { settingsOf } from '../config.ts';
import { routeMetaOf } from './routes.ts';

/**
 * Serialized answers of the dashboard-side reads, kept by this isolate and reused while nothing in the
 * caller's organization has changed.
 *
 * Every table whose rows an API read can show (or that decides who sees what) has a trigger that bumps
 * `organization_versions.version` for the row's organization when a transaction commits a real change
 * (db/migrations/0003). A cached answer is served only while the organization's version equals the
 * version read before the answer was built. A write anywhere in the organization drops every cached
 * answer of that organization: coarse, but writes are rare next to reads.
 *
 * How fresh the version must be (READ_CACHE_TRUST_MS, default 100 ms):
 * - After a write request (any non-GET) through this isolate, the next read of that organization asks
 *   the database again, by a statement that starts after the write finished (DbPool.orgVersion): a
 *   caller always reads its own writes.
 * - Otherwise a version read in the last READ_CACHE_TRUST_MS is trusted, so a write committed
 *   elsewhere (another isolate or region, the cron, the engine, psql) shows within that time. With 0,
 *   every read asks the database (one round trip to the pool object, shared by concurrent readers).
 * Asking on every read would cost a round trip per request, about as much as the rest of a cached read.
 *
 * What is kept is what the route declares (lib/routes.ts, `cache` and `writes` in defineRoute):
 * `cache: 'org-version'` GETs are kept, `cache: 'poll'` is the status poll (below), and every call
 * declared as writing (every method but GET, and a GET declared `writes: true`) counts as a write.
 *
 * The key is the caller (API key id plus its grants, or user id plus role) and the full URL, so two
 * callers never share an answer, and a key's changed permissions never meet an old answer. Only 200
 * answers are kept; errors are computed every time. Answers carry an ETag of the version, and
 * `If-None-Match` with it gets a 304.
 */
const MAX_BYTES = 32 * 1024 * 1024;
const MAX_ENTRY_BYTES = 2 * 1024 * 1024;

/**
 * The dashboard status poll (`cache: 'poll'`) is a POST that only reads (it may start executions, which change no
 * content the version covers). It is not counted as a write, and its answer is reused for the same
 * caller, dashboard and body for POLL_REUSE_MS (default 250; 0 = never) while the organization's
 * version and this isolate's writes to it are unchanged: a thousand viewers polling one dashboard then
 * cost one status-object call per quarter second, not one each. A poll with `refresh_data: true` is
 * never answered from memory, and it counts as a write (so is POST /dashboards/{id}/refresh, a POST):
 * the answers kept from before the new runs are not handed out again. A result that completes shows
 * at most that long later (the status answer's own poll delay is at least two seconds).
 */

interface Entry {
  version: string;
  /** For reused poll answers: when it was built, this isolate's writes to the organization then, and
   *  when a request set out to build it anew (others keep the old answer meanwhile, for a while). */
  builtAt?: number;
  writes?: number;
  refreshingSince?: number;
  /** Encoded once, so a hit does not encode the text again. */
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
  etag: string;
}
const entries = new Map<string, Entry>();
let bytes = 0;

const callerKeys = new WeakMap<Principal, string>();
function callerKey(p: Principal): string {
  let k = callerKeys.get(p);
  if (!k) {
    k = p.kind === 'api_key' ? `key:${p.apiKeyId}:${JSON.stringify(p.grants)}` : `user:${p.userId}:${p.role}`;
    callerKeys.set(p, k);
  }
  return k;
}

function remember(key: string, entry: Entry) {
  const size = entry.body.byteLength;
  if (size > MAX_ENTRY_BYTES) return;
  forget(key);
  entries.set(key, entry);
  bytes += size;
  // Oldest first: a Map iterates in insertion order, and hits re-insert (see below).
  for (const [k] of entries) {
    if (bytes <= MAX_BYTES) break;
    forget(k);
  }
}

function forget(key: string) {
  const old = entries.get(key);
  if (old) {
    bytes -= old.body.byteLength;
    entries.delete(key);
  }
}

/** 32-bit FNV-1a, hex: only to keep ETags short and distinct per caller and URL (not a secret). */
function fnv(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16);
}

/** `If-None-Match` may list several tags, or `*`. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || `W/${tag}` === etag;
  });
}

async function askVersion(env: Env, organizationId: string): Promise<string> {
  if (!usesDbPool(env)) {
    // Straight through Hyperdrive (D53): no object to gather concurrent readers, one statement each.
    const [row] = await poolStatement(env)('select version::text as v from organization_versions where organization_id = $1', [organizationId]);
    return String(row?.v ?? '0');
  }
  const stub = anyDbPoolStub(env);
  return stub.orgVersion(organizationId);
}

/** The last version read per organization, and a count of this isolate's writes to it. */
const known = new Map<string, { version: string; readAt: number; writes: number; refreshingSince: number }>();
const localWrites = new Map<string, number>();
/** How long a refresh under way lets other readers keep the previous version (the refresh's own latency). */
const REFRESH_GRACE_MS = 1000;

async function organizationVersion(env: Env, organizationId: string): Promise<string> {
  const trustMs = settingsOf(env).readCacheTrustMs;
  const writes = localWrites.get(organizationId) ?? 0;
  const k = known.get(organizationId);
  const now = Date.now();
  if (k && k.writes === writes) {
    if (now - k.readAt < trustMs) return k.version;
    // Another request of this isolate is already asking: keep using the last answer meanwhile, rather
    // than every concurrent reader asking too. (It is not awaited: workerd would run this request's
    // rest in the other request's context.)
    if (trustMs > 0 && now - k.refreshingSince < REFRESH_GRACE_MS && now - k.readAt < trustMs + REFRESH_GRACE_MS) return k.version;
    k.refreshingSince = now;
  }
  const startedAt = now;
  try {
    const version = await askVersion(env, organizationId);
    // Kept only if no write of this isolate finished while the read was under way.
    if ((localWrites.get(organizationId) ?? 0) === writes) {
      const cur = known.get(organizationId);
      if (!cur || cur.writes !== writes || cur.readAt <= startedAt) {
        known.set(organizationId, { version, readAt: startedAt, writes, refreshingSince: 0 });
      }
      if (known.size > 10_000) known.delete(known.keys().next().value!);
    }
    return version;
  } catch (err) {
    if (k) k.refreshingSince = 0;
    throw err;
  }
}

function noteWrite(organizationId: string) {
  localWrites.set(organizationId, (localWrites.get(organizationId) ?? 0) + 1);
  if (localWrites.size > 10_000) localWrites.delete(localWrites.keys().next().value!);
}

/** Poll answers being built by a request of this isolate, and since when. */
const building = new Map<string, number>();

/** POST /dashboards/{id}/status: the answer of a moment ago to the same caller and body (see `cache: 'poll'` above). */
const pollCache: MiddlewareHandler<AppEnv> = async (c, next) => {
  const reuseMs = settingsOf(c.env).pollReuseMs;
  if (!(reuseMs > 0) || settingsOf(c.env).readCacheOff) return next();
  const text = await c.req.text();
  let refresh = false;
  try {
    refresh = (JSON.parse(text || '{}') as { refresh_data?: unknown } | null)?.refresh_data === true;
  } catch {
    return next(); // not JSON: the route answers with the error
  }
  const p = c.get('principal');
  if (refresh) {
    // New runs start: answers kept from before them must not be handed out (counted like a write).
    try {
      await next();
    } finally {
      noteWrite(p.organizationId);
    }
    return;
  }
  const key = `${callerKey(p)} POST ${c.req.path} ${c.req.header('content-type') ?? ''} ${text}`;
  const writes = localWrites.get(p.organizationId) ?? 0;
  let version: string;
  try {
    version = await organizationVersion(c.env, p.organizationId);
  } catch {
    return next();
  }
  const valid = (e: Entry | undefined) => (e && e.version === version && e.writes === writes ? e : undefined);
  let hit = valid(entries.get(key));
  // Nothing usable kept, and another request is building this answer: wait for it (lib/wait-for.ts).
  const since = building.get(key);
  if (!hit && since !== undefined && Date.now() - since < BURST_WAIT_MS) {
    hit = valid((await waitFor(() => valid(entries.get(key)) ?? (building.has(key) ? undefined : false))) || undefined);
  }
  const now = Date.now();
  if (hit) {
    const age = now - hit.builtAt!;
    // Fresh; or a little older while another request is already building the next answer (so that an
    // expiry does not send every poller of the moment to the status object at once).
    if (age < reuseMs || (now - hit.refreshingSince! < REFRESH_GRACE_MS && age < reuseMs + REFRESH_GRACE_MS)) {
      return c.body(hit.body, 200, { 'content-type': hit.contentType, 'cache-control': 'private, no-store' });
    }
    hit.refreshingSince = now;
  } else building.set(key, now);
  try {
    await next();
    if (c.res.status === 200) {
      const body = new Uint8Array(await c.res.clone().arrayBuffer());
      remember(key, {
        version,
        body,
        contentType: c.res.headers.get('content-type') ?? 'application/json',
        etag: '',
        builtAt: now,
        writes,
        refreshingSince: 0,
      });
    } else if (hit) hit.refreshingSince = 0;
  } finally {
    // After remember(): a waiter that sees the build over finds its answer.
    if (building.get(key) === now) building.delete(key);
  }
};

export const readCache: MiddlewareHandler<AppEnv> = async (c, next) => {
  const route = routeMetaOf(c);
  if (route?.cache === 'poll') return pollCache(c, next);
  // A call the route declares as writing, or any non-GET no defined route takes, counts as a write.
  if (route ? route.writes : c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    try {
      await next();
    } finally {
      noteWrite(c.get('principal').organizationId);
    }
    return;
  }
  if (c.req.method !== 'GET' || settingsOf(c.env).readCacheOff) return next();
  if (route?.cache !== 'org-version') return next();
  const url = new URL(c.req.url);
  const p = c.get('principal');
  url.searchParams.sort();
  const key = `${callerKey(p)} ${url.origin}${url.pathname}?${url.searchParams}`;
  let version: string;
  try {
    version = await organizationVersion(c.env, p.organizationId);
  } catch {
    return next(); // the database is unreachable: let the route answer (and fail) as it would
  }
  const hit = entries.get(key);
  if (hit && hit.version === version) {
    entries.delete(key);
    entries.set(key, hit); // most recently used last
    const headers = { etag: hit.etag, 'cache-control': 'private, no-cache' };
    if (matches(c.req.header('if-none-match'), hit.etag)) return c.body(null, 304, headers);
    return c.body(hit.body, 200, { ...headers, 'content-type': hit.contentType });
  }
  await next();
  if (c.res.status !== 200) return;
  const body = new Uint8Array(await c.res.clone().arrayBuffer());
  const etag = `W/"${version}-${fnv(key)}"`;
  remember(key, { version, body, contentType: c.res.headers.get('content-type') ?? 'application/vnd.api+json', etag });
  c.res.headers.set('etag', etag);
  c.res.headers.set('cache-control', 'private, no-cache');
  if (matches(c.req.header('if-none-match'), etag)) c.res = new Response(null, { status: 304, headers: c.res.headers });
};

/**
 * The same memory for callers without a principal: the public sharing-link reads
 * (resources/public-links/kept.ts), which check the link's rules on every request themselves and then
 * ask here for the answer. `version` is the organization's version read before anything the answer
 * shows was loaded (organizationVersionOf); the answer under `key` is served while it and this
 * isolate's writes to the organization are unchanged, and with `reuseMs` (status polls) for that long
 * only. A burst of requests for one key costs one build: the others wait for it (lib/wait-for.ts).
 * Without a version (the database could not say), or with READ_CACHE=off, every request builds.
 */
export async function sharedAnswer(
  env: Env,
  organizationId: string,
  version: string | null,
  key: string,
  reuseMs: number | null,
  build: () => Promise<unknown>,
): Promise<Uint8Array<ArrayBuffer>> {
  const encode = async () => new TextEncoder().encode(JSON.stringify(await build())) as Uint8Array<ArrayBuffer>;
  if (version === null || settingsOf(env).readCacheOff || (reuseMs !== null && !(reuseMs > 0))) return encode();
  const writes = localWrites.get(organizationId) ?? 0;
  const fresh = (e: Entry | undefined, now: number) => {
    if (!e || e.version !== version || e.writes !== writes) return undefined;
    if (reuseMs === null) return e;
    const age = now - e.builtAt!;
    // A little older while another request is already building the next answer (as in pollCache).
    return age < reuseMs || (now - e.refreshingSince! < REFRESH_GRACE_MS && age < reuseMs + REFRESH_GRACE_MS) ? e : undefined;
  };
  let hit = fresh(entries.get(key), Date.now());
  const since = building.get(key);
  if (!hit && since !== undefined && Date.now() - since < BURST_WAIT_MS) {
    hit = (await waitFor(() => fresh(entries.get(key), Date.now()) ?? (building.has(key) ? undefined : false))) || undefined;
  }
  if (hit) {
    entries.delete(key);
    entries.set(key, hit); // most recently used last
    return hit.body;
  }
  const now = Date.now();
  const old = entries.get(key);
  if (old && old.version === version && old.writes === writes) old.refreshingSince = now;
  building.set(key, now);
  try {
    const body = await encode();
    remember(key, { version, body, contentType: 'application/json', etag: '', builtAt: now, writes, refreshingSince: 0 });
    return body;
  } catch (err) {
    if (old) old.refreshingSince = 0;
    throw err;
  } finally {
    if (building.get(key) === now) building.delete(key);
  }
}

/** The organization's version for sharedAnswer (trusted for READ_CACHE_TRUST_MS, as for keyed reads); null when it cannot be read. */
export async function organizationVersionOf(env: Env, organizationId: string): Promise<string | null> {
  if (settingsOf(env).readCacheOff) return null;
  try {
    return await organizationVersion(env, organizationId);
  } catch {
    return null;
  }
}

/** A public call that starts work (a link's refresh_data): answers kept from before it are not handed out again. */
export function noteOrganizationWrite(organizationId: string): void {
  noteWrite(organizationId);
}
