import { and, eq } from 'drizzle-orm';
import { dashboardFilters, filters } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';

/**
 * The dashboard's filters as the SQL compiler needs them (every data, export and refresh call), with the
 * same columns the status poll reads (durable/dashboard-status.ts): an unset aggregation filter falls back
 * to its default value in both.
 */
export function dashboardFilterDefinitions(ctx: ServiceContext, dashboardId: string) {
  return ctx.db
    .select({
      variable_name: filters.variable_name,
      control_type: filters.control_type,
      value_type: filters.value_type,
      allowed_aggregations: filters.allowed_aggregations,
      default_values: filters.default_values,
    })
    .from(dashboardFilters)
    .innerJoin(filters, eq(filters.id, dashboardFilters.filter_id))
    .where(and(eq(dashboardFilters.dashboard_id, dashboardId), eq(dashboardFilters.organization_id, ctx.principal.organizationId)));
}
