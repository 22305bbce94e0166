import { auditLog } from '@cairn/db';
import { actorOf } from '../auth/principal.ts';
import type { ServiceContext, Tx } from './context.ts';

/** What an audit row names, by its JSON:API type (plural, as the API answers it). */
export type AuditResourceType =
  | 'api_keys'
  | 'dashboard_groups'
  | 'dashboard_schedules'
  | 'dashboard_sharing_links'
  | 'dashboards'
  | 'datasource_agents'
  | 'datasources'
  | 'export_jobs'
  | 'filters'
  | 'organizations'
  | 'reports'
  | 'sql_alerts'
  | 'sql_snippets'
  | 'user_groups'
  | 'users';

/**
 * Records one write: organization, the key or user who made it, the action (`create`, `update`,
 * `delete`, or a verb such as `lock`), the resource and the request id. `details` names what
 * changed (attribute names, never secret values). Called by every service verb that writes; a write
 * in a transaction records it on the transaction, through lib/transaction.ts withTransaction.
 */
export async function audit(
  ctx: Pick<ServiceContext, 'principal' | 'requestId'> & { db: ServiceContext['db'] | Tx },
  action: string,
  resourceType: AuditResourceType,
  resourceId: string | null,
  details?: Record<string, unknown>,
): Promise<void> {
  // The request's statement database and a transaction insert alike; their types differ only in the driver.
  await (ctx.db as ServiceContext['db']).insert(auditLog).values({
    organization_id: ctx.principal.organizationId,
    ...actorOf(ctx.principal),
    action,
    resource_type: resourceType,
    resource_id: resourceId,
    request_id: ctx.requestId,
    details: details ?? null,
  });
}

/** Attribute names that changed, for `details` (values left out: they may be secret). */
export const changed = (attributes: Record<string, unknown>, relationships: Record<string, unknown> = {}) => ({
  attributes: Object.keys(attributes),
  ...(Object.keys(relationships).length ? { relationships: Object.keys(relationships) } : {}),
});
