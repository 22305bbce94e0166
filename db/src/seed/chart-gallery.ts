/**
 * The "Chart gallery" dashboard every new organization gets next to the sample dashboard: one report
 * per chart type (and both map kinds, two hierarchy layouts), each on real sample-shop SQL, sharing the
 * sample dashboard's `order_date` and `country` filters and using the built-in `aggregation`.
 */
import { newId, sqlReferences } from '@cairn/core';
import { dashboardFilters, dashboards, reportFilters, reports, type LayoutTile } from '../schema/index.ts';
import { audit, type Actor, type Executor } from './audit.ts';

export const CHART_GALLERY_NAME = 'Chart gallery';

interface GalleryReport {
  name: string;
  description: string;
  chart: Record<string, unknown>;
  sql: string;
  tile: Omit<LayoutTile, 'type' | 'id'>;
}

const REVENUE = `o.status NOT IN ('cancelled', 'returned')`;
/** The two shared filters on an order's date and country (the tail of most WHERE clauses). */
const ORDER_FILTERS = `{[o.ordered_at]=order_date}
  AND {[o.country]=country}`;
/** Order lines with their order, product and currency: the base of the revenue-per-product reports. */
const ORDER_LINES = `FROM order_items i
JOIN orders o ON o.id = i.order_id
JOIN products p ON p.id = i.product_id
JOIN currencies cur ON cur.code = o.currency`;
const LINE_REVENUE_EUR = 'i.quantity * i.unit_price * cur.eur_rate';

const SPECS: readonly GalleryReport[] = [
  {
    name: 'Revenue vs previous period',
    description: 'Number with a KPI arrow: the selected period against the period of the same length before it.',
    chart: { type: 'number', value: 'revenue_eur', compare: 'previous_revenue_eur', prefix: '€', format: { compact: true } },
    sql: `SELECT (SELECT round(sum(o.total_eur)) FROM orders o
        WHERE ${REVENUE} AND {[o.ordered_at]=order_date} AND {[o.country]=country}) AS revenue_eur,
       (SELECT round(sum(o.total_eur)) FROM orders o
        WHERE ${REVENUE} AND {[o.ordered_at]=order_date.previous} AND {[o.country]=country}) AS previous_revenue_eur`,
    tile: { row: 1, column: 1, width: 3, height: 3 },
  },
  {
    name: 'Conversion rate',
    description: 'Gauge: share of sessions that ended in an order, against a target of 5 %.',
    chart: { type: 'gauge', value: 'conversion_rate', min: 'minimum', max: 'maximum', target: 'target', format: { suffix: ' %', decimals: 2 } },
    sql: `SELECT round(100.0 * count(*) FILTER (WHERE s.converted) / nullif(count(*), 0), 2) AS conversion_rate,
       0 AS minimum,
       10 AS maximum,
       5 AS target
FROM web_sessions s
WHERE {[s.started_at]=order_date}
  AND {[s.country]=country}`,
    tile: { row: 1, column: 4, width: 3, height: 3 },
  },
  {
    name: 'Orders per period',
    description: 'Line chart with two series; the aggregation filter picks the period.',
    chart: { type: 'line', x: 'period', y: ['orders', 'cancelled'] },
    sql: `SELECT {[o.ordered_at]:aggregation} AS period,
       count(*) AS orders,
       count(*) FILTER (WHERE o.status = 'cancelled') AS cancelled
FROM orders o
WHERE ${ORDER_FILTERS}
GROUP BY 1
ORDER BY 1`,
    tile: { row: 1, column: 7, width: 6, height: 3 },
  },
  {
    name: 'Orders by status per month',
    description: 'Stacked bars from long data: the status column names the series.',
    chart: { type: 'bar', x: 'month', series: 'status', y: ['orders'], grouping: 'stacked' },
    sql: `SELECT date_trunc('month', o.ordered_at)::date AS month,
       o.status,
       count(*) AS orders
FROM orders o
WHERE ${ORDER_FILTERS}
GROUP BY 1, 2
ORDER BY 1, 2`,
    tile: { row: 4, column: 1, width: 8, height: 4 },
  },
  {
    name: 'Revenue by category',
    description: 'Donut pie with percentages.',
    chart: { type: 'pie', label: 'category', value: 'revenue_eur', donut: true, format: { prefix: '€' } },
    sql: `SELECT p.category,
       round(sum(${LINE_REVENUE_EUR})) AS revenue_eur
${ORDER_LINES}
WHERE ${REVENUE}
  AND ${ORDER_FILTERS}
GROUP BY p.category
ORDER BY revenue_eur DESC`,
    tile: { row: 4, column: 9, width: 4, height: 4 },
  },
  {
    name: 'Revenue by country (map)',
    description: 'Region map: countries coloured by revenue; orders in the tooltip.',
    chart: { type: 'map', kind: 'region', region_set: 'world', region: 'country', value: 'revenue_eur', format: { prefix: '€', compact: true } },
    sql: `SELECT o.country,
       round(sum(o.total_eur)) AS revenue_eur,
       count(*) AS orders
FROM orders o
WHERE ${REVENUE}
  AND ${ORDER_FILTERS}
GROUP BY o.country
ORDER BY revenue_eur DESC`,
    tile: { row: 8, column: 1, width: 6, height: 5 },
  },
  {
    name: 'Customers by city (map)',
    description: 'Point map: a marker per city, sized by its customers.',
    chart: { type: 'map', kind: 'point', latitude: 'latitude', longitude: 'longitude', size: 'customers', label: 'city' },
    sql: `SELECT cu.city,
       geo.latitude,
       geo.longitude,
       count(*) AS customers
FROM customers cu
JOIN (VALUES ('Berlin', 52.520, 13.405), ('Hamburg', 53.551, 9.994), ('Munich', 48.137, 11.575),
             ('Paris', 48.857, 2.352), ('Lyon', 45.764, 4.836), ('London', 51.507, -0.128),
             ('Manchester', 53.481, -2.243), ('Amsterdam', 52.368, 4.904), ('Madrid', 40.417, -3.704),
             ('Barcelona', 41.385, 2.173), ('Stockholm', 59.329, 18.069), ('Zurich', 47.377, 8.541),
             ('Geneva', 46.204, 6.143), ('New York', 40.713, -74.006), ('Chicago', 41.878, -87.630),
             ('San Francisco', 37.775, -122.419), ('Austin', 30.267, -97.743), ('Seattle', 47.606, -122.332))
  AS geo(city, latitude, longitude) ON geo.city = cu.city
WHERE {[cu.country]=country}
GROUP BY cu.city, geo.latitude, geo.longitude`,
    tile: { row: 8, column: 7, width: 6, height: 5 },
  },
  {
    name: 'Countries by sessions and conversion',
    description: 'XY / bubble chart: sessions across, conversion up, sized by pages per session.',
    chart: { type: 'xy_bubble', label: 'country', x: 'sessions', y: 'conversion_rate', size: 'pages_per_session', trend_line: true },
    sql: `SELECT c.name AS country,
       count(*) AS sessions,
       round(100.0 * count(*) FILTER (WHERE s.converted) / count(*), 2) AS conversion_rate,
       round(avg(s.pages), 1) AS pages_per_session
FROM web_sessions s
JOIN countries c ON c.code = s.country
WHERE {[s.started_at]=order_date}
  AND {[s.country]=country}
GROUP BY c.name
ORDER BY sessions DESC`,
    tile: { row: 13, column: 1, width: 6, height: 5 },
  },
  {
    name: 'Cities by customers',
    description: 'Word cloud: each city sized by its number of customers.',
    chart: { type: 'word_cloud', word: 'city', weight: 'customers' },
    sql: `SELECT cu.city,
       count(*) AS customers
FROM customers cu
WHERE {[cu.country]=country}
GROUP BY cu.city
ORDER BY customers DESC`,
    tile: { row: 13, column: 7, width: 6, height: 5 },
  },
  {
    name: 'Order totals',
    description: 'Histogram: how order totals in euros are distributed, in bins of €25 up to €1,000.',
    chart: { type: 'histogram', value: 'total_eur', bin_width: 25, min: 0, max: 1000 },
    sql: `SELECT o.total_eur
FROM orders o
WHERE ${REVENUE}
  AND ${ORDER_FILTERS}`,
    tile: { row: 18, column: 1, width: 6, height: 4 },
  },
  {
    name: 'Revenue by category and product',
    description: 'Hierarchy as a treemap: click a category to zoom in.',
    chart: { type: 'hierarchy', layout: 'treemap', levels: ['category', 'product'], value: 'revenue_eur', format: { prefix: '€' } },
    sql: `SELECT p.category,
       p.name AS product,
       round(sum(${LINE_REVENUE_EUR})) AS revenue_eur
${ORDER_LINES}
WHERE ${REVENUE}
  AND ${ORDER_FILTERS}
GROUP BY 1, 2
ORDER BY 1, 3 DESC`,
    tile: { row: 18, column: 7, width: 6, height: 4 },
  },
  {
    name: 'Customers by country and city',
    description: 'Hierarchy as a sunburst: countries inside, their cities outside.',
    chart: { type: 'hierarchy', layout: 'sunburst', levels: ['country', 'city'], value: 'customers' },
    sql: `SELECT c.name AS country,
       cu.city,
       count(*) AS customers
FROM customers cu
JOIN countries c ON c.code = cu.country
WHERE {[cu.country]=country}
GROUP BY 1, 2`,
    tile: { row: 22, column: 1, width: 4, height: 5 },
  },
  {
    name: 'Customer retention by signup month',
    description: 'Cohort table: active customers per month after signup, as a share of month 0.',
    chart: { type: 'pivot', rows: 'cohort', columns: 'months_after_signup', value: 'active_customers', percentage: 'first', color_values: true },
    sql: `WITH activity AS (
  SELECT date_trunc('month', cu.signup_date)::date AS cohort,
         (extract(year FROM age(date_trunc('month', o.ordered_at AT TIME ZONE 'UTC'),
                                date_trunc('month', cu.signup_date::timestamp))) * 12
          + extract(month FROM age(date_trunc('month', o.ordered_at AT TIME ZONE 'UTC'),
                                   date_trunc('month', cu.signup_date::timestamp))))::int AS months_after_signup,
         o.customer_id
  FROM orders o
  JOIN customers cu ON cu.id = o.customer_id
  WHERE {[o.country]=country}
    AND cu.signup_date >= DATE '2025-11-01'
)
SELECT cohort, months_after_signup, count(DISTINCT customer_id) AS active_customers
FROM activity
WHERE months_after_signup BETWEEN 0 AND 11
GROUP BY 1, 2
ORDER BY 1, 2`,
    tile: { row: 22, column: 5, width: 8, height: 5 },
  },
  {
    name: 'Revenue and orders by category, product and quarter',
    description: 'Multi-pivot table: categories with their products, quarters across, two measures; collapse a category to its subtotal.',
    chart: {
      type: 'multi_pivot',
      rows: ['category', 'product'],
      columns: ['quarter'],
      values: [
        { column: 'revenue_eur', aggregation: 'sum' },
        { column: 'orders', aggregation: 'sum' },
      ],
      format: { decimals: 0 },
    },
    sql: `SELECT p.category,
       p.name AS product,
       to_char(o.ordered_at AT TIME ZONE 'UTC', 'YYYY "Q"Q') AS quarter,
       round(sum(${LINE_REVENUE_EUR}), 2) AS revenue_eur,
       count(DISTINCT o.id) AS orders
${ORDER_LINES}
WHERE ${REVENUE}
  AND o.ordered_at >= TIMESTAMPTZ '2026-01-01 00:00:00+00'
  AND ${ORDER_FILTERS}
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3`,
    tile: { row: 27, column: 1, width: 12, height: 6 },
  },
  {
    name: 'Latest orders',
    description: 'Table: the 500 most recent orders; click a header to sort.',
    chart: { type: 'table', sort: { column: 'ordered_at', desc: true }, totals: ['total_eur'] },
    sql: `SELECT o.id AS order_id,
       o.ordered_at,
       cu.name AS customer,
       c.name AS country,
       o.status,
       o.total_eur
FROM orders o
JOIN customers cu ON cu.id = o.customer_id
JOIN countries c ON c.code = o.country
WHERE ${ORDER_FILTERS}
ORDER BY o.ordered_at DESC, o.id DESC
LIMIT 500`,
    tile: { row: 33, column: 1, width: 12, height: 6 },
  },
];

const SHARED_FILTERS = ['order_date', 'country'] as const;

/** The reports, each with the shared filters its SQL refers to (read from the SQL, so they cannot disagree). */
export const GALLERY_REPORTS: readonly (GalleryReport & { uses: (typeof SHARED_FILTERS)[number][] })[] = SPECS.map((r) => {
  const variables = sqlReferences(r.sql).variables;
  return { ...r, uses: SHARED_FILTERS.filter((v) => variables.includes(v)) };
});

/** Creates the gallery on the sample datasource, sharing the sample dashboard's filters (by variable name). */
export async function createChartGallery(
  ex: Executor,
  actor: Actor,
  input: { organizationId: string; ownerUserId: string; datasourceId: string; filters: { id: string; variable_name: string }[] },
): Promise<{ id: string; reportIds: string[] }> {
  const org = input.organizationId;
  const reportIds = GALLERY_REPORTS.map(() => newId('report'));
  const layout: LayoutTile[] = GALLERY_REPORTS.map((r, i) => ({ type: 'report', id: reportIds[i]!, ...r.tile }));
  const [dashboard] = await ex
    .insert(dashboards)
    .values({
      id: newId('dashboard'),
      organization_id: org,
      user_id: input.ownerUserId,
      name: CHART_GALLERY_NAME,
      description:
        'One report per chart type on the sample shop: numbers, gauge, line, bar, pie, maps, XY, word cloud, histogram, hierarchies, pivots and a table.',
      share_mode: 'all_users',
      layout,
      default_parameters: { aggregation: 'month' },
      filters_configuration: { apply_immediately: true, aggregation_options: ['day', 'week', 'month', 'quarter', 'year'] },
    })
    .returning();
  await audit(ex, actor, {
    organizationId: org,
    action: 'create',
    resourceType: 'dashboard',
    resourceId: dashboard!.id,
    details: { name: CHART_GALLERY_NAME },
  });
  await ex
    .insert(dashboardFilters)
    .values(input.filters.map((f, position) => ({ organization_id: org, dashboard_id: dashboard!.id, filter_id: f.id, position })));
  await ex.insert(reports).values(
    GALLERY_REPORTS.map((r, i) => ({
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
  );
  for (const [i, r] of GALLERY_REPORTS.entries()) {
    await audit(ex, actor, { organizationId: org, action: 'create', resourceType: 'report', resourceId: reportIds[i]!, details: { name: r.name } });
  }
  const byVariable = new Map(input.filters.map((f) => [f.variable_name, f.id]));
  const links = GALLERY_REPORTS.flatMap((r, i) =>
    r.uses.filter((v) => byVariable.has(v)).map((v) => ({ organization_id: org, report_id: reportIds[i]!, filter_id: byVariable.get(v)! })),
  );
  if (links.length) await ex.insert(reportFilters).values(links);
  return { id: dashboard!.id, reportIds };
}
