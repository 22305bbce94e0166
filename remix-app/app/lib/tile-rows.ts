/**
 * How many rows a dashboard tile asks the data server for (one home for these caps): a table shows
 * one page at a time and pages through the result; a chart that draws a mark per row gets at most what
 * it can draw; a chart that summarises every row (histogram bins, pivot sums, word counts, the tree's
 * sizes, the KPI's total) gets up to 100,000 rows, so that it is right for every result that size.
 * Either says so when the result was cut. The data server answers at most 100,000 rows per call.
 */
import { parseChartConfig, type ChartType } from '../components/charts/config';

/** Rows of one table page on a dashboard tile. */
export const TABLE_PAGE_ROWS = 200;

/** Rows a chart of each type is given at most. */
export const CHART_ROW_CAP: Record<Exclude<ChartType, 'table'>, number> = {
  // A mark per row: more than this is more marks than pixels.
  pie: 5_000,
  line: 5_000,
  bar: 5_000,
  xy_bubble: 5_000,
  map: 10_000,
  // Every row counts towards what is drawn.
  number: 100_000,
  gauge: 100_000,
  histogram: 100_000,
  word_cloud: 100_000,
  hierarchy: 100_000,
  pivot: 100_000,
  multi_pivot: 100_000,
};

/** The first request's row limit for a tile of this chart type. */
function rowLimitFor(type: ChartType | undefined): number {
  if (!type || type === 'table') return TABLE_PAGE_ROWS;
  return CHART_ROW_CAP[type] ?? 5_000;
}

/** The app's data proxy address of one page of a stored result. */
export function dataPageUrl(key: string, offset: number, limit: number): string {
  return `/app/data/${key}?offset=${offset}&limit=${limit}`;
}

/** "Showing the first N of M rows" when a chart's result was cut, else null. */
export function cutNote(shown: number, total: number | undefined): string | null {
  if (total === undefined || total <= shown) return null;
  return `Showing the first ${shown.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows.`;
}

/** The row limit of a tile whose report has this `chart_configuration`. */
export function rowLimitOf(chartConfiguration: unknown): number {
  return rowLimitFor(parseChartConfig(chartConfiguration).config.type);
}
