import { auditLog } from '@cairn/db';
import { actorOf } from '../auth/principal.ts';
import type { ServiceContext } from './context.ts';

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
 * changed (attribute names, never secret values). Called by every service verb that writes.
 */
export async function audit(
  ctx: Pick<ServiceContext, 'db' | 'principal' | 'requestId'>,
  action: string,
  resourceType: AuditResourceType,
  resourceId: string | null,
  details?: Record<string, unknown>,
): Promise<void> {
  await ctx.db.insert(auditLog).values({
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
