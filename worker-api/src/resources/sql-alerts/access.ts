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
export const alertTarget = (alertId: string, datasourceId: string): ResourceRef[] =>
  [{ type: 'sql_alerts', id: alertId }, { type: 'datasources', id: datasourceId }];

/** Update and delete: Manage Alerts or Manage Datasources, reaching the alert with its datasource. */
export function requireAlertWrite(p: Principal, alertId: string, datasourceId: string): void {
  const target = alertTarget(alertId, datasourceId);
  if (can(p, 'manage_alerts', target) || can(p, 'manage_datasources', target)) return;
  requirePermission(p, canAny(p, ['manage_alerts']) ? 'manage_alerts' : 'manage_datasources', target);
}

/**
 * Reads of one alert (the alert, its results): an alert of the organization (404 otherwise) that the
 * permission reaches with its datasource (403 otherwise).
 */
export async function requireAlertRead(ctx: ServiceContext, alertId: string, permission: Permission = 'view_alerts') {
  const [row] = await ctx.db.select({ datasource_id: sqlAlerts.datasource_id }).from(sqlAlerts)
    .where(and(eq(sqlAlerts.id, alertId), eq(sqlAlerts.organization_id, ctx.principal.organizationId))).limit(1);
  if (!row) throw notFound('SQL alert', alertId);
  requirePermission(ctx.principal, permission, alertTarget(alertId, row.datasource_id));
  return row;
}

/** Before any lookup: the caller holds one of the write permissions at all. */
export function requireAnyAlertWrite(p: Principal): void {
  if (!canAny(p, ['manage_alerts', 'manage_datasources'])) requirePermission(p, 'manage_alerts');
}
