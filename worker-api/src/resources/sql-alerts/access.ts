import { and, eq, type SQL } from 'drizzle-orm';
import type { Permission } from '@cairn/core';
import { sqlAlerts } from '@cairn/db';
import { can, canAny, requirePermission, type Principal } from '../../auth/principal.ts';
import { grantScope } from '../datasources/access.ts';

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

const reaches = (p: Principal, perm: Permission, alertId: string, datasourceId: string) =>
  can(p, perm, { type: 'sql_alerts', id: alertId }) && can(p, perm, { type: 'datasources', id: datasourceId });

/** Update and delete: Manage Alerts or Manage Datasources, reaching both the alert and its datasource. */
export function requireAlertWrite(p: Principal, alertId: string, datasourceId: string): void {
  if (reaches(p, 'manage_alerts', alertId, datasourceId) || reaches(p, 'manage_datasources', alertId, datasourceId)) return;
  const perm: Permission = canAny(p, ['manage_alerts']) ? 'manage_alerts' : 'manage_datasources';
  requirePermission(p, perm, { type: 'sql_alerts', id: alertId });
  requirePermission(p, perm, { type: 'datasources', id: datasourceId });
}

/** Before any lookup: the caller holds one of the write permissions at all. */
export function requireAnyAlertWrite(p: Principal): void {
  if (!canAny(p, ['manage_alerts', 'manage_datasources'])) requirePermission(p, 'manage_alerts');
}
