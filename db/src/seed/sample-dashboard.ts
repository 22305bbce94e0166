/**
 * The "Online shop overview" dashboard every new organization gets on its Sample data datasource (and,
 * from chart-gallery.ts, the "Chart gallery" beside it).
 * Each report uses both dashboard filters: the date range `order_date` and the country dropdown `country`.
 */
import { newId } from '@cairn/core';
import { dashboardFilters, dashboards, filters, reportFilters, reports, type LayoutTile } from '../schema/index.ts';
import { SAMPLE_COUNTRIES } from '../sample-shop/constants.ts';
import { audit, type Actor, type Executor } from './audit.ts';
import { createChartGallery } from './chart-gallery.ts';

export type DashboardRow = typeof dashboards.$inferSelect;
export type ReportRow = typeof reports.$inferSelect;
export type FilterRow = typeof filters.$inferSelect;
export type SampleDashboard = DashboardRow & { reports: ReportRow[]; filters: FilterRow[] };

export const SAMPLE_DASHBOARD_NAME = 'Online shop overview';

interface ReportSpec {
  name: string;
  description: string;
  chart: Record<string, unknown>;
  sql: string;
  tile: Omit<LayoutTile, 'type' | 'id'>;
}

/** Completed orders only: cancelled and returned ones bring no revenue. */
const REVENUE = `o.status NOT IN ('cancelled', 'returned')`;
const ORDER_FILTERS = `{[o.ordered_at]=order_date}\n  AND {[o.country]=country}`;

export const SAMPLE_REPORTS: readonly ReportSpec[] = [
  {
    name: 'Total revenue',
    description: 'Revenue in euros of orders that were not cancelled or returned.',
    chart: { type: 'number', value: 'revenue_eur', prefix: '€' },
    sql: `SELECT round(sum(o.total_eur), 2) AS revenue_eur,
       count(*) AS orders
FROM orders o
WHERE ${REVENUE}
  AND ${ORDER_FILTERS}`,
    tile: { row: 1, column: 1, width: 4, height: 4 },
  },
  {
    name: 'Orders per week',
    description: 'Number of orders placed each week.',
    chart: { type: 'line', x: 'week', y: ['orders'] },
    sql: `SELECT date_trunc('week', o.ordered_at)::date AS week,
       count(*) AS orders
FROM orders o
WHERE ${ORDER_FILTERS}
GROUP BY 1
ORDER BY 1`,
    tile: { row: 1, column: 5, width: 8, height: 4 },
  },
  {
    name: 'Revenue by country',
    description: 'Revenue in euros per shipping country.',
    chart: { type: 'bar', x: 'country', y: ['revenue_eur'], layout: 'vertical' },
    sql: `SELECT c.name AS country,
       round(sum(o.total_eur)) AS revenue_eur
FROM orders o
JOIN countries c ON c.code = o.country
WHERE ${REVENUE}
  AND ${ORDER_FILTERS}
GROUP BY c.name
ORDER BY revenue_eur DESC`,
    tile: { row: 5, column: 1, width: 6, height: 5 },
  },
  {
    name: 'Revenue by category',
    description: 'Share of revenue in euros per product category.',
    chart: { type: 'pie', label: 'category', value: 'revenue_eur' },
    sql: `SELECT p.category,
       round(sum(i.quantity * i.unit_price * cur.eur_rate)) AS revenue_eur
FROM order_items i
JOIN orders o ON o.id = i.order_id
JOIN products p ON p.id = i.product_id
JOIN currencies cur ON cur.code = o.currency
WHERE ${REVENUE}
  AND ${ORDER_FILTERS}
GROUP BY p.category
ORDER BY revenue_eur DESC`,
    tile: { row: 5, column: 7, width: 6, height: 5 },
  },
  {
    name: 'Sessions by traffic source',
    description: 'Website sessions and the sessions that ended in an order, per traffic source.',
    chart: { type: 'bar', x: 'source', y: ['sessions', 'conversions'], layout: 'horizontal' },
    sql: `SELECT s.source,
       count(*) AS sessions,
       count(*) FILTER (WHERE s.converted) AS conversions
FROM web_sessions s
WHERE {[s.started_at]=order_date}
  AND {[s.country]=country}
GROUP BY s.source
ORDER BY sessions DESC`,
    tile: { row: 10, column: 1, width: 12, height: 5 },
  },
  {
    name: 'Latest orders',
    description: 'The 100 most recent orders.',
    chart: { type: 'table' },
    sql: `SELECT o.id AS order_id,
       o.ordered_at,
       cu.name AS customer,
       c.name AS country,
       o.status,
       o.currency,
       o.total,
       o.total_eur
FROM orders o
JOIN customers cu ON cu.id = o.customer_id
JOIN countries c ON c.code = o.country
WHERE ${ORDER_FILTERS}
ORDER BY o.ordered_at DESC, o.id DESC
LIMIT 100`,
    tile: { row: 15, column: 1, width: 12, height: 6 },
  },
];

/** Creates the sample dashboard, its two filters and its reports, with audit entries, in `ex`'s transaction. */
export async function createSampleDashboard(
  ex: Executor,
  actor: Actor,
  input: { organizationId: string; ownerUserId: string; datasourceId: string },
): Promise<SampleDashboard> {
  const org = input.organizationId;
  const log = (resourceType: string, resourceId: string, details?: Record<string, unknown>) =>
    audit(ex, actor, { organizationId: org, action: 'create', resourceType, resourceId, details });

  const reportIds = SAMPLE_REPORTS.map(() => newId('report'));
  const layout: LayoutTile[] = SAMPLE_REPORTS.map((r, i) => ({ type: 'report', id: reportIds[i]!, ...r.tile }));

  const [dashboard] = await ex
    .insert(dashboards)
    .values({
      id: newId('dashboard'),
      organization_id: org,
      user_id: input.ownerUserId,
      name: SAMPLE_DASHBOARD_NAME,
      description: 'Sales and website traffic of a sample online shop over two years.',
      share_mode: 'all_users',
      layout,
      filters_configuration: { apply_immediately: true },
    })
    .returning();
  await log('dashboard', dashboard!.id, { name: dashboard!.name });

  const createdFilters = await ex
    .insert(filters)
    .values([
      {
        id: newId('filter'),
        organization_id: org,
        datasource_id: input.datasourceId,
        display_name: 'Date',
        variable_name: 'order_date',
        control_type: 'date_range',
        value_type: 'DATE',
      },
      {
        id: newId('filter'),
        organization_id: org,
        datasource_id: input.datasourceId,
        display_name: 'Country',
        variable_name: 'country',
        control_type: 'dropdown_multi_manual',
        value_type: 'TEXT',
        values: SAMPLE_COUNTRIES.map((c) => c.code),
        value_names: SAMPLE_COUNTRIES.map((c) => c.name),
      },
    ])
    .returning();
  for (const f of createdFilters) await log('filter', f.id, { variable_name: f.variable_name });
  await ex
    .insert(dashboardFilters)
    .values(createdFilters.map((f, position) => ({ organization_id: org, dashboard_id: dashboard!.id, filter_id: f.id, position })));

  const createdReports = await ex
    .insert(reports)
    .values(
      SAMPLE_REPORTS.map((r, i) => ({
        id: reportIds[i]!,
        organization_id: org,
        dashboard_id: dashboard!.id,
        datasource_id: input.datasourceId,
        name: r.name,
        description: r.description,
        sql_query: r.sql,
        chart_configuration: r.chart,
        no_data_message: 'No data for these filters.',
      })),
    )
    .returning();
  for (const r of createdReports) await log('report', r.id, { name: r.name });
  await ex.insert(reportFilters).values(createdReports.flatMap((r) => createdFilters.map((f) => ({ organization_id: org, report_id: r.id, filter_id: f.id }))));

  // The chart gallery sits next to it, on the same datasource and filters.
  await createChartGallery(ex, actor, { organizationId: org, ownerUserId: input.ownerUserId, datasourceId: input.datasourceId, filters: createdFilters });

  // Keep the layout order in the returned list.
  const byId = new Map(createdReports.map((r) => [r.id, r]));
  return { ...dashboard!, reports: reportIds.map((id) => byId.get(id)!), filters: createdFilters };
}
