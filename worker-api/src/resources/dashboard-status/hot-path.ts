import { signDataToken } from '@cairn/core';
import type { dashboards, filters } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { findDashboard } from '../dashboards/service.ts';
import { principalContext } from '../../engine/compile-context.ts';
import { dashboardFilterRows } from '../filters/rules.ts';

/**
 * What a poll needs besides the status object, remembered by this isolate for a moment: a thousand
 * viewers polling one dashboard would otherwise each cost a dashboard lookup, a user lookup and a
 * signature per report. The dashboard (as this caller may see it) and the caller's snippet context
 * are fresh for as long as verified API keys are (AUTH_CACHE_MS, default 2 s; 0 = never); for as long
 * again a stale value is still used while one request looks it up anew, so an expiry does not send a
 * thousand lookups at once (an access change thus applies within twice that moment). A data token is
 * reused for a minute (two while it is signed anew), so it keeps at least three of its five minutes.
 *
 * Only settled values are shared between requests: workerd does not let one request wait on I/O
 * that another request started.
 */
type DashboardRow = typeof dashboards.$inferSelect;
type Entry<V> = { at: number; value: V; refreshing: boolean };
const MAX_ENTRIES = 5_000;
const TOKEN_REUSE_MS = 60_000;

const boards = new Map<string, Entry<DashboardRow>>();
const contexts = new Map<string, Entry<Awaited<ReturnType<typeof principalContext>>>>();
const tokens = new Map<string, Entry<string>>();
const filterRules = new Map<string, Entry<(typeof filters.$inferSelect)[]>>();

const ttlOf = (ctx: ServiceContext) => Number(ctx.env.AUTH_CACHE_MS ?? 2000);
const callerOf = (ctx: ServiceContext) => (ctx.principal.kind === 'api_key' ? `k:${ctx.principal.apiKeyId}` : `s:${ctx.principal.sessionId}`);

/** The remembered value under `key`, or `load`'s (remembered); a stale one while another request reloads it. */
async function remembered<V>(map: Map<string, Entry<V>>, key: string, ttl: number, load: () => Promise<V>): Promise<V> {
  if (ttl <= 0) return load();
  const hit = map.get(key);
  const age = hit ? Date.now() - hit.at : Infinity;
  if (hit && age < ttl) return hit.value;
  if (hit && age < 2 * ttl && hit.refreshing) return hit.value;
  if (hit) hit.refreshing = true;
  try {
    const value = await load();
    if (map.size >= MAX_ENTRIES) map.clear();
    map.set(key, { at: Date.now(), value, refreshing: false });
    return value;
  } catch (err) {
    map.delete(key);
    throw err;
  }
}

/** findDashboard for this caller, from the isolate's memory when it was looked up a moment ago. */
export function visibleDashboard(ctx: ServiceContext, id: string): Promise<DashboardRow> {
  return remembered(boards, `${callerOf(ctx)}:${id}`, ttlOf(ctx), () => findDashboard(ctx, id));
}

/** The dashboard's filters with their rules (required, dropdown_validate…), remembered like the dashboard. */
export function dashboardFilterRules(ctx: ServiceContext, dashboardId: string) {
  return remembered(filterRules, `${ctx.principal.organizationId}:${dashboardId}`, ttlOf(ctx), () => dashboardFilterRows(ctx, dashboardId));
}

/** principalContext for this caller, remembered like the dashboard. */
export async function callerContext(ctx: ServiceContext) {
  if (ctx.principal.kind !== 'user') return {};
  return remembered(contexts, callerOf(ctx), ttlOf(ctx), () => principalContext(ctx));
}

/** A data access token for a data key of the caller's organization (one signature per key and minute). */
export function dataTokenFor(ctx: ServiceContext, dataKey: string): Promise<string> {
  return remembered(tokens, `${ctx.env.REGION}:${ctx.principal.organizationId}:${dataKey}`, TOKEN_REUSE_MS, () =>
    signDataToken({ kind: 'data', org: ctx.principal.organizationId, key: dataKey, region: ctx.env.REGION }, ctx.env.DATA_TOKEN_SECRET));
}
