/**
 * A service context for work that outlives its request (an export job in `waitUntil`, the cron's
 * schedule deliveries): the request's own `direct()` client is closed when the response is sent, so
 * background work opens its own and closes it when done.
 */
import { createDb, type DbClient } from '@cairn/db';
import type { Env } from '../../env.ts';
import type { Principal } from '../../auth/principal.ts';
import type { ServiceContext } from '../../lib/context.ts';
import { pooledDb } from '../../lib/db.ts';

export interface Background {
  ctx: ServiceContext;
  close: () => Promise<void>;
}

export function backgroundContext(
  env: Env,
  principal: Principal,
  waitUntil: (p: Promise<unknown>) => void,
  requestId = crypto.randomUUID(),
  baseUrl = '',
): Background {
  let direct: DbClient | null = null;
  const ctx: ServiceContext = {
    db: pooledDb(env),
    direct: () => (direct ??= createDb(env.HYPERDRIVE.connectionString, { max: 1 })),
    principal,
    env,
    requestId,
    baseUrl,
    waitUntil,
  };
  return {
    ctx,
    close: async () => {
      // The workers test pool cannot end clients (CAIRN_KEEP_CONNECTIONS, see lib/db.ts).
      if (direct && !env.CAIRN_KEEP_CONNECTIONS) await (direct as DbClient).sql.end({ timeout: 5 }).catch(() => {});
    },
  };
}

/**
 * Who a rendered export or a scheduled e-mail reads data as: the organization, View Dashboards on that
 * one dashboard, and no user — built-in user snippets ([CAIRN_USER_EMAIL] …) are NULL, whoever asked.
 * Work it causes is recorded under `actor` (the job or the schedule).
 */
export function viewerPrincipal(organizationId: string, dashboardId: string, actor: string): Principal {
  return {
    kind: 'api_key',
    organizationId,
    apiKeyId: actor,
    grants: [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: dashboardId }] }],
  };
}
