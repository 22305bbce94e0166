import { and, asc, eq } from 'drizzle-orm';
import { dashboardFilters, filters } from '@cairn/db';
import type { PooledDb } from '../../lib/db.ts';
import { organizationVersionOf } from '../../lib/read-cache.ts';
import { BURST_WAIT_MS, waitFor } from '../../lib/wait-for.ts';
import type { Env } from '../../env.ts';
import { loadLink, sharingSecretOf, type DashboardRow, type LinkRow } from './access.ts';

export type FilterRow = typeof filters.$inferSelect;

/**
 * What every public call of a link needs before it can check the caller — the link, its dashboard, its
 * decrypted sharing secret and the dashboard's filters — kept by this isolate per token while the
 * organization's version is unchanged (lib/read-cache.ts; dashboard_sharing_links, dashboards, filters
 * and organizations all move it). A changed password, allow-list, secret or option, or a deleted link,
 * therefore applies on the next call through this isolate, and within READ_CACHE_TRUST_MS from
 * anywhere else. The rules themselves (access.ts: address, signature and its expiry, password grant)
 * are checked on every call against what is kept; only the loading is saved.
 */
export interface KeptLink {
  link: LinkRow;
  dashboard: DashboardRow;
  secret: string | null;
  filters: FilterRow[];
  /** The organization's version the rows were read under; null when it could not be read (nothing kept). */
  version: string | null;
}

const MAX_LINKS = 5_000;
/** A token's organization never changes; learning it costs the first call of a token one more lookup. */
const organizationOf = new Map<string, string>();
const kept = new Map<string, KeptLink>();
/** Tokens a request of this isolate is loading, and since when (the rest of a burst waits for it). */
const loading = new Map<string, number>();

export async function filterRows(db: PooledDb, organizationId: string, dashboardId: string): Promise<FilterRow[]> {
  return db
    .select({ filter: filters })
    .from(dashboardFilters)
    .innerJoin(filters, eq(filters.id, dashboardFilters.filter_id))
    .where(and(eq(dashboardFilters.dashboard_id, dashboardId), eq(dashboardFilters.organization_id, organizationId)))
    .orderBy(asc(dashboardFilters.position))
    .then((rows) => rows.map((r) => r.filter));
}

async function load(db: PooledDb, env: Env, token: string, version: string | null): Promise<KeptLink> {
  const { link, dashboard } = await loadLink(db, token, env);
  const [secret, filterList] = await Promise.all([sharingSecretOf(env, link), filterRows(db, link.organization_id, dashboard.id)]);
  return { link, dashboard, secret, filters: filterList, version };
}

function bounded<V>(map: Map<string, V>, key: string, value: V) {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_LINKS) map.delete(map.keys().next().value!);
}

/** The link of `token` as it stands now (404 for an unknown token, 403 wrong_region for the other region's). */
export async function currentLink(db: PooledDb, env: Env, token: string): Promise<KeptLink> {
  let org = organizationOf.get(token);
  if (org === undefined) {
    org = (await loadLink(db, token, env)).link.organization_id;
    bounded(organizationOf, token, org);
  }
  const version = await organizationVersionOf(env, org);
  if (version === null) return load(db, env, token, null);
  const valid = (e: KeptLink | undefined) => (e && e.version === version ? e : undefined);
  let hit = valid(kept.get(token));
  const since = loading.get(token);
  if (!hit && since !== undefined && Date.now() - since < BURST_WAIT_MS) {
    hit = (await waitFor(() => valid(kept.get(token)) ?? (loading.has(token) ? undefined : false))) || undefined;
  }
  if (hit) return hit;
  const now = Date.now();
  loading.set(token, now);
  try {
    const fresh = await load(db, env, token, version);
    bounded(kept, token, fresh);
    return fresh;
  } catch (err) {
    kept.delete(token);
    organizationOf.delete(token);
    throw err;
  } finally {
    if (loading.get(token) === now) loading.delete(token);
  }
}
