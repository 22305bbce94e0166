import type { Context } from 'hono';
import type { DbClient } from '@cairn/db';
import type { PooledDb } from './db.ts';
import type { AppEnv, Env } from '../env.ts';
import type { Principal } from '../auth/principal.ts';

/** A transaction of the request's direct client (lib/transaction.ts withTransaction). */
export type Tx = Parameters<Parameters<DbClient['db']['transaction']>[0]>[0];

/** What a service verb needs: the database, the caller, the deployment and the request id. */
export interface ServiceContext {
  db: PooledDb;
  /** A request-scoped client for transactions and query runs; opened on first use. */
  direct: () => DbClient;
  principal: Principal;
  env: Env;
  requestId: string;
  /** Origin of this API server, for links. */
  baseUrl: string;
  waitUntil: (p: Promise<unknown>) => void;
}

export function serviceContext(c: Context<AppEnv>): ServiceContext {
  return {
    db: c.get('db'),
    direct: c.get('direct'),
    principal: c.get('principal'),
    env: c.env,
    requestId: c.get('requestId'),
    baseUrl: new URL(c.req.url).origin,
    waitUntil: (p) => c.executionCtx.waitUntil(p),
  };
}
