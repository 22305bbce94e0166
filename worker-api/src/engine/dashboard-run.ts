import { and, asc, eq } from 'drizzle-orm';
import { sha256Hex, signDataToken, type InputParameters } from '@cairn/core';
import { dashboardFilters, filters, type dashboards } from '@cairn/db';
import type { ServiceContext } from '../lib/context.ts';
import type { Env } from '../env.ts';
import type { StatusRequest } from '../durable/dashboard-status.ts';
import { findDashboard } from '../resources/dashboards/service.ts';
import { principalContext } from './compile-context.ts';
import { dashboardStatusStub } from '../durable/stubs.ts';
import { settingsOf } from '../config.ts';

/*
 * The context a dashboard's data runs in, shared by every caller that runs a dashboard's reports and
 * filters (the status poll, refreshes, the data calls, filter options, schedules, exports, jobs): the
 * parameters as they run, the status object they reach, and the per-isolate memory of the caller's
 * dashboard, filters, snippet context and data tokens.
 */

type FilterRow = typeof filters.$inferSelect;

/** The dashboard's default parameters, overridden field by field (filters by variable name) by the request's. */
export function mergeParameters(defaults: InputParameters | null | undefined, given: InputParameters | undefined): InputParameters {
  const d = defaults ?? {};
  const g = given ?? {};
  const filters = new Map((d.filters ?? []).map((f) => [f.variable_name, f]));
  for (const f of g.filters ?? []) filters.set(f.variable_name, f);
  const out: InputParameters = {};
  for (const k of ['timerange', 'aggregation', 'tz'] as const) {
    const v = g[k] ?? d[k];
    if (v !== undefined) out[k] = v;
  }
  if (filters.size) out.filters = [...filters.values()].sort((a, b) => a.variable_name.localeCompare(b.variable_name));
  return out;
}

/**
 * The DashboardStatus object of a dashboard and a (merged) parameter set: every caller asking with
 * the same parameters — pollers, the options call, the prewarm cron — reaches the same object.
 */
export async function statusObject(env: Env, dashboardId: string, parameters: InputParameters) {
  const hash = (await sha256Hex(JSON.stringify(parameters))).slice(0, 32);
  return dashboardStatusStub(env, dashboardId, hash);
}

/** The request the status object takes, for the caller of this request. */
export async function statusRequest(ctx: ServiceContext, dashboardId: string, parameters: InputParameters, refresh: boolean): Promise<StatusRequest> {
  const actor = ctx.principal.kind === 'api_key' ? ctx.principal.apiKeyId : ctx.principal.userId;
  const context = await callerContext(ctx);
  return { organizationId: ctx.principal.organizationId, dashboardId, parameters, refresh, actor, context };
}

/** The dashboard's filters in their order on it (the rules of resources/filters/enforce.ts read them). */
export async function dashboardFilterRows(ctx: ServiceContext, dashboardId: string): Promise<FilterRow[]> {
  const rows = await ctx.db
    .select({ f: filters })
    .from(dashboardFilters)
    .innerJoin(filters, eq(filters.id, dashboardFilters.filter_id))
    .where(and(eq(dashboardFilters.dashboard_id, dashboardId), eq(dashboardFilters.organization_id, ctx.principal.organizationId)))
    .orderBy(asc(dashboardFilters.position), asc(filters.id));
  return rows.map((r) => r.f);
}

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
const filterRules = new Map<string, Entry<FilterRow[]>>();

const ttlOf = (ctx: ServiceContext) => settingsOf(ctx.env).authCacheMs;
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
async function callerContext(ctx: ServiceContext) {
  if (ctx.principal.kind !== 'user') return {};
  return remembered(contexts, callerOf(ctx), ttlOf(ctx), () => principalContext(ctx));
}

/** A data access token for a data key of the caller's organization (one signature per key and minute). */
export function dataTokenFor(ctx: ServiceContext, dataKey: string): Promise<string> {
  return remembered(tokens, `${ctx.env.REGION}:${ctx.principal.organizationId}:${dataKey}`, TOKEN_REUSE_MS, () =>
    signDataToken({ kind: 'data', org: ctx.principal.organizationId, key: dataKey, region: ctx.env.REGION }, ctx.env.DATA_TOKEN_SECRET),
  );
}
