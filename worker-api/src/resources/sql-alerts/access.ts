import { and, eq, type SQL } from 'drizzle-orm';
import { notFound, type Permission, type ResourceRef } from '@cairn/core';
import type { ServiceContext } from '../../lib/context.ts';
import { sqlAlerts } from '@cairn/db';
import { can, canAny, requirePermission, type Principal } from '../../auth/principal.ts';
import { grantScope } from '../../auth/access.ts';

/**
 * Alerts of the caller's organization that View (or Manage) Alerts reaches: a grant may be restricted
 * to named alerts and to datasources (an alert is reached through its datasource).
 */
export function visibleAlerts(p: Principal): SQL {
  return and(
    eq(sqlAlerts.organization_id, p.organizationId),
    grantScope(p, 'view_alerts', { sql_alerts: sqlAlerts.id, datasources: sqlAlerts.datasource_id }),
  )!;
}

/** What an alert touches for a permission check: itself and its datasource (core `grantReaches`). */
export const alertTarget = (alertId: string, datasourceId: string): ResourceRef[] => [
  { type: 'sql_alerts', id: alertId },
  { type: 'datasources', id: datasourceId },
];

/**
 * Update and delete: Manage Alerts or Manage Datasources, reaching the alert with its datasource. An
 * alert the caller cannot see (View Alerts does not reach it) is a 404, as if it did not exist; a caller
 * without either permission at all is a 403 (principal.ts requirePermissionOn states the rule).
 */
export function requireAlertWrite(p: Principal, alertId: string, datasourceId: string, moving = false): void {
  const target = alertTarget(alertId, datasourceId);
  if (can(p, 'manage_alerts', target) || can(p, 'manage_datasources', target)) return;
  const permission = canAny(p, ['manage_alerts']) ? 'manage_alerts' : 'manage_datasources';
  // Moving a visible alert to a datasource the key cannot reach stays a 403.
  if (!moving && canAny(p, [permission]) && !can(p, 'view_alerts', target)) throw notFound('SQL alert', alertId);
  requirePermission(p, permission, target);
}

/**
 * Reads of one alert (the alert, its results): an alert of the organization that the caller can see
 * (404 otherwise) and that the permission reaches with its datasource (403 otherwise).
 */
export async function requireAlertRead(ctx: ServiceContext, alertId: string, permission: Permission = 'view_alerts') {
  const [row] = await ctx.db
    .select({ datasource_id: sqlAlerts.datasource_id })
    .from(sqlAlerts)
    .where(and(eq(sqlAlerts.id, alertId), eq(sqlAlerts.organization_id, ctx.principal.organizationId)))
    .limit(1);
  if (!row) throw notFound('SQL alert', alertId);
  requireOnAlert(ctx.principal, permission, alertId, row.datasource_id);
  return row;
}

/**
 * The check on an alert of the organization that was found: allowed when the permission reaches it with
 * its datasource; a 404 when the caller holds the permission elsewhere but cannot see this alert (View
 * Alerts does not reach it); a 403 otherwise (visible, or the permission not held at all).
 */
export function requireOnAlert(p: Principal, permission: Permission, alertId: string, datasourceId: string): void {
  const target = alertTarget(alertId, datasourceId);
  if (!can(p, permission, target) && canAny(p, [permission]) && !can(p, 'view_alerts', target)) throw notFound('SQL alert', alertId);
  requirePermission(p, permission, target);
}

/** Before any lookup: the caller holds one of the write permissions at all. */
export function requireAnyAlertWrite(p: Principal): void {
  if (!canAny(p, ['manage_alerts', 'manage_datasources'])) requirePermission(p, 'manage_alerts');
}
