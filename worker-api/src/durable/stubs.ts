/**
 * Every Durable Object stub the API worker asks for, one typed function per object (D70): the naming
 * scheme of each object's instances lives here and nowhere else. Call sites never spell `idFromName`.
 */
import type { Env } from '../env.ts';

type Bindings<K extends keyof Env> = Pick<Env, K>;

/** A token bucket (durable/rate-limiter.ts), one per bucket name (`signin:<address>`, `otp:<user>`, …). */
export function rateLimiterStub(env: Bindings<'RATE_LIMITER'>, bucket: string) {
  return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`ratelimit::${bucket}`));
}

/** The database pool shard `shard` (durable/db-pool.ts). */
export function dbPoolStub(env: Bindings<'DB_POOL'>, shard: number) {
  return env.DB_POOL.get(env.DB_POOL.idFromName(`db-pool::${shard}`));
}

/** One of the DB_POOL_SHARDS pool shards (default 2), picked at random to spread the load. */
export function anyDbPoolStub(env: Bindings<'DB_POOL' | 'DB_POOL_SHARDS'>) {
  const shards = Math.max(1, Number(env.DB_POOL_SHARDS ?? 2));
  return dbPoolStub(env, Math.floor(Math.random() * shards));
}

/** A datasource's execution gate (durable/datasource-gate.ts): one per datasource. */
export function datasourceGateStub(env: Bindings<'DATASOURCE_GATE'>, datasourceId: string) {
  return env.DATASOURCE_GATE.get(env.DATASOURCE_GATE.idFromName(`gate::${datasourceId}`));
}

/** A dashboard's run state for one parameter set (durable/dashboard-status.ts); `parametersHash` names the set. */
export function dashboardStatusStub(env: Bindings<'DASHBOARD_STATUS'>, dashboardId: string, parametersHash: string) {
  return env.DASHBOARD_STATUS.get(env.DASHBOARD_STATUS.idFromName(`status::${dashboardId}::${parametersHash}`));
}

/** A datasource agent's hub (durable/agent-hub.ts): one per datasource_agents row. */
export function agentHubStub(ns: Env['AGENT_HUB'], agentRowId: string) {
  return ns.get(ns.idFromName(`agent::${agentRowId}`));
}
