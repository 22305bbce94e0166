/**
 * A report's `chart_configuration`, as the app reads and (through the report editor) writes it. The
 * API keeps it opaque; this module is its one definition. Every column role is optional: an empty
 * configuration (`{type: 'bar'}`) draws with defaults taken from the result's columns (see resolve.ts),
 * and `{}` is a table. Unknown keys are ignored; wrong-typed values fall back to defaults.
 */

import { parseDrilldown, type Drilldown } from './drilldown';

export const CHART_TYPES = [
  'table',
  'pivot',
  'multi_pivot',
  'number',
  'pie',
  'line',
  'bar',
  'map',
  'gauge',
  'xy_bubble',
  'word_cloud',
  'histogram',
  'hierarchy',
] as const;
export type ChartType = (typeof CHART_TYPES)[number];

export const CHART_LABELS: Record<ChartType, string> = {
  table: 'Table',
  pivot: 'Pivot / cohort table',
  multi_pivot: 'Multi-pivot / cohort table',
  number: 'Number',
  pie: 'Pie',
  line: 'Line',
  bar: 'Bar',
  map: 'Map',
  gauge: 'Gauge',
  xy_bubble: 'XY / bubble',
  word_cloud: 'Word cloud',
  histogram: 'Histogram',
  hierarchy: 'Hierarchy',
};

/** Number formatting shared by every chart. */
export interface NumberFormat {
  decimals?: number;
  prefix?: string;
  suffix?: string;
  /** 12.3K, 4.5M */
  compact?: boolean;
  /** Multiply by 100 and add "%". */
  percent?: boolean;
}

interface Base {
  format?: NumberFormat;
  legend?: 'top' | 'right' | 'bottom' | 'none';
  /** Which colour of the dashboard's scheme the first series (slice, bar) takes (0-based; the rest follow in order). */
  color_start?: number;
  /** Where a click on a bar, a slice or a table row leads (drilldown.ts). */
  drilldown?: Drilldown;
}

/** Axis titles of charts with axes (line, bar, xy_bubble, histogram). */
interface AxisTitles {
  x_title?: string;
  y_title?: string;
}

export interface TableConfig extends Base {
  type: 'table';
  /** Columns to show, in this order (default: all). */
  columns?: string[];
  hidden?: string[];
  labels?: Record<string, string>;
  sort?: { column: string; desc?: boolean } | null;
  size?: 'S' | 'M' | 'L' | 'XL';
  wrap?: boolean;
  freeze_first?: boolean;
  totals?: string[];
}
export interface PivotConfig extends Base {
  type: 'pivot';
  rows?: string;
  columns?: string;
  value?: string;
  row_totals?: boolean;
  column_totals?: boolean;
  percentage?: 'row' | 'column' | 'total' | 'first' | null;
  color_values?: boolean;
  sort_rows?: 'label' | 'result';
  sort_columns?: 'label' | 'result';
  empty?: string;
}
export type Aggregation = 'sum' | 'avg' | 'median' | 'min' | 'max' | 'count' | 'count_distinct' | 'concat';
export interface MultiPivotConfig extends Base {
  type: 'multi_pivot';
  rows?: string[];
  columns?: string[];
  values?: { column: string; aggregation?: Aggregation }[];
  subtotals?: boolean;
  grand_totals?: boolean;
}
export interface NumberConfig extends Base {
  type: 'number';
  value?: string;
  /** A column, or 'second_row' for the first column's value in the second row. */
  compare?: string;
  change_as?: 'percent' | 'absolute';
  down_is_good?: boolean;
  prefix?: string;
  suffix?: string;
  label?: string;
}
export interface PieConfig extends Base {
  type: 'pie';
  label?: string;
  value?: string;
  donut?: boolean;
  slice_labels?: 'none' | 'name' | 'value' | 'percent';
  max_slices?: number;
}
export interface LineConfig extends Base, AxisTitles {
  type: 'line';
  x?: string;
  y?: string[];
  /** Value columns drawn against a second y-axis on the right (measures on another scale; wide data only). */
  y_right?: string[];
  /** The right axis' title. */
  y_right_title?: string;
  series?: string;
  smooth?: boolean;
  points?: boolean;
  area?: boolean;
  stacked?: boolean;
  zero?: boolean;
  reference_line?: number;
  missing?: 'gap' | 'connect' | 'zero';
}
export interface BarConfig extends Base, AxisTitles {
  type: 'bar';
  x?: string;
  y?: string[];
  series?: string;
  layout?: 'vertical' | 'horizontal';
  grouping?: 'grouped' | 'stacked' | 'percent';
  labels?: boolean;
}
export interface MapConfig extends Base {
  type: 'map';
  kind?: 'region' | 'point';
  region_set?: 'world' | 'us_states';
  region?: string;
  value?: string;
  latitude?: string;
  longitude?: string;
  size?: string;
  label?: string;
}
export interface GaugeConfig extends Base {
  type: 'gauge';
  value?: string;
  /** A column name or a fixed number. */
  min?: string | number;
  max?: string | number;
  target?: string | number;
  bands?: { to: number; color?: string }[];
  down_is_good?: boolean;
}
export interface XyBubbleConfig extends Base, AxisTitles {
  type: 'xy_bubble';
  label?: string;
  x?: string;
  y?: string;
  size?: string;
  series?: string;
  trend_line?: boolean;
  log_x?: boolean;
}
export interface WordCloudConfig extends Base {
  type: 'word_cloud';
  word?: string;
  weight?: string;
  max_words?: number;
  min_font?: number;
  max_font?: number;
  scale?: 'linear' | 'sqrt';
  rotation?: 'none' | 'hv' | 'mixed';
}
export interface HistogramConfig extends Base, AxisTitles {
  type: 'histogram';
  value?: string;
  series?: string;
  bins?: number;
  bin_width?: number;
  min?: number;
  max?: number;
  show?: 'count' | 'percent' | 'cumulative';
}
export interface HierarchyConfig extends Base {
  type: 'hierarchy';
  layout?: 'treemap' | 'sunburst' | 'circles' | 'partition';
  levels?: string[];
  value?: string;
  color_by?: 'group' | 'depth';
}

export type ChartConfig =
  | TableConfig
  | PivotConfig
  | MultiPivotConfig
  | NumberConfig
  | PieConfig
  | LineConfig
  | BarConfig
  | MapConfig
  | GaugeConfig
  | XyBubbleConfig
  | WordCloudConfig
  | HistogramConfig
  | HierarchyConfig;

const ALIASES: Record<string, ChartType> = {
  pivot_table: 'pivot',
  cohort: 'pivot',
  cohort_table: 'pivot',
  multi_pivot_table: 'multi_pivot',
  xy: 'xy_bubble',
  bubble: 'xy_bubble',
  scatter: 'xy_bubble',
  wordcloud: 'word_cloud',
  treemap: 'hierarchy',
  sunburst: 'hierarchy',
  column: 'bar',
  kpi: 'number',
  area: 'line',
  donut: 'pie',
};

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);
const strList = (v: unknown): string[] | undefined => {
  if (typeof v === 'string' && v) return [v];
  if (!Array.isArray(v)) return undefined;
  const list = v.filter((s): s is string => typeof s === 'string' && s.length > 0);
  return list.length ? list : undefined;
};
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const oneOf = <T extends string>(v: unknown, options: readonly T[]): T | undefined =>
  typeof v === 'string' && (options as readonly string[]).includes(v) ? (v as T) : undefined;
const colOrNum = (v: unknown): string | number | undefined => num(v) ?? str(v);

function format(v: unknown): NumberFormat | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const f = v as Record<string, unknown>;
  const decimals = num(f.decimals);
  return {
    decimals: decimals === undefined ? undefined : Math.max(0, Math.min(10, Math.round(decimals))),
    prefix: typeof f.prefix === 'string' ? f.prefix : undefined,
    suffix: typeof f.suffix === 'string' ? f.suffix : undefined,
    compact: bool(f.compact),
    percent: bool(f.percent),
  };
}

function withoutUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/** Reads a report's chart_configuration; an unknown type is shown as a table with a note. */
export function parseChartConfig(raw: unknown): { config: ChartConfig; problem?: string } {
  const c = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const given = str(c.type) ?? 'table';
  const type = (CHART_TYPES as readonly string[]).includes(given) ? (given as ChartType) : ALIASES[given];
  if (!type) return { config: { type: 'table' }, problem: `The chart type "${given}" is unknown; the data is shown as a table.` };
  const colorStart = num(c.color_start);
  const base = {
    format: format(c.format),
    legend: oneOf(c.legend, ['top', 'right', 'bottom', 'none'] as const),
    color_start: colorStart === undefined ? undefined : Math.max(0, Math.min(31, Math.round(colorStart))),
    drilldown: parseDrilldown(c.drilldown) ?? undefined,
  };
  const axes = { x_title: str(c.x_title), y_title: str(c.y_title) };
  const build = (): ChartConfig => {
    switch (type) {
      case 'table':
        return {
          type,
          ...base,
          columns: strList(c.columns),
          hidden: strList(c.hidden),
          labels: c.labels && typeof c.labels === 'object' ? (c.labels as Record<string, string>) : undefined,
          sort:
            c.sort && typeof c.sort === 'object' && str((c.sort as { column?: unknown }).column)
              ? { column: (c.sort as { column: string }).column, desc: bool((c.sort as { desc?: unknown }).desc) }
              : undefined,
          size: oneOf(c.size, ['S', 'M', 'L', 'XL'] as const),
          wrap: bool(c.wrap),
          freeze_first: bool(c.freeze_first),
          totals: strList(c.totals),
        };
      case 'pivot':
        return {
          type,
          ...base,
          rows: str(c.rows),
          columns: str(c.columns),
          value: str(c.value),
          row_totals: bool(c.row_totals),
          column_totals: bool(c.column_totals),
          percentage: oneOf(c.percentage, ['row', 'column', 'total', 'first'] as const) ?? null,
          color_values: bool(c.color_values),
          sort_rows: oneOf(c.sort_rows, ['label', 'result'] as const),
          sort_columns: oneOf(c.sort_columns, ['label', 'result'] as const),
          empty: typeof c.empty === 'string' ? c.empty : undefined,
        };
      case 'multi_pivot':
        return {
          type,
          ...base,
          rows: strList(c.rows),
          columns: strList(c.columns),
          values: Array.isArray(c.values)
            ? c.values
                .map((v) =>
                  typeof v === 'string'
                    ? { column: v }
                    : v && typeof v === 'object'
                      ? {
                          column: str((v as { column?: unknown }).column) ?? '',
                          aggregation: oneOf((v as { aggregation?: unknown }).aggregation, [
                            'sum',
                            'avg',
                            'median',
                            'min',
                            'max',
                            'count',
                            'count_distinct',
                            'concat',
                          ] as const),
                        }
                      : null,
                )
                .filter((v): v is { column: string; aggregation: Aggregation | undefined } => Boolean(v && v.column))
            : undefined,
          subtotals: bool(c.subtotals),
          grand_totals: bool(c.grand_totals),
        };
      case 'number':
        return {
          type,
          ...base,
          value: str(c.value),
          compare: str(c.compare),
          change_as: oneOf(c.change_as, ['percent', 'absolute'] as const),
          down_is_good: bool(c.down_is_good),
          prefix: typeof c.prefix === 'string' ? c.prefix : undefined,
          suffix: typeof c.suffix === 'string' ? c.suffix : undefined,
          label: str(c.label),
        };
      case 'pie':
        return {
          type,
          ...base,
          label: str(c.label),
          value: str(c.value),
          donut: bool(c.donut) ?? (given === 'donut' ? true : undefined),
          slice_labels: oneOf(c.slice_labels, ['none', 'name', 'value', 'percent'] as const),
          max_slices: num(c.max_slices),
        };
      case 'line':
        return {
          type,
          ...base,
          ...axes,
          x: str(c.x),
          y: strList(c.y),
          y_right: strList(c.y_right),
          y_right_title: str(c.y_right_title),
          series: str(c.series),
          smooth: bool(c.smooth),
          points: bool(c.points),
          area: bool(c.area) ?? (given === 'area' ? true : undefined),
          stacked: bool(c.stacked),
          zero: bool(c.zero),
          reference_line: num(c.reference_line),
          missing: oneOf(c.missing, ['gap', 'connect', 'zero'] as const),
        };
      case 'bar':
        return {
          type,
          ...base,
          ...axes,
          x: str(c.x),
          y: strList(c.y),
          series: str(c.series),
          layout: oneOf(c.layout, ['vertical', 'horizontal'] as const),
          grouping: oneOf(c.grouping, ['grouped', 'stacked', 'percent'] as const),
          labels: bool(c.labels),
        };
      case 'map':
        return {
          type,
          ...base,
          kind: oneOf(c.kind, ['region', 'point'] as const),
          region_set: oneOf(c.region_set, ['world', 'us_states'] as const),
          region: str(c.region),
          value: str(c.value),
          latitude: str(c.latitude),
          longitude: str(c.longitude),
          size: str(c.size),
          label: str(c.label),
        };
      case 'gauge':
        return {
          type,
          ...base,
          value: str(c.value),
          min: colOrNum(c.min),
          max: colOrNum(c.max),
          target: colOrNum(c.target),
          bands: Array.isArray(c.bands)
            ? (c.bands.filter((b) => b && typeof b === 'object' && num((b as { to?: unknown }).to) !== undefined) as GaugeConfig['bands'])
            : undefined,
          down_is_good: bool(c.down_is_good),
        };
      case 'xy_bubble':
        return {
          type,
          ...base,
          ...axes,
          label: str(c.label),
          x: str(c.x),
          y: str(c.y),
          size: str(c.size),
          series: str(c.series),
          trend_line: bool(c.trend_line),
          log_x: bool(c.log_x),
        };
      case 'word_cloud':
        return {
          type,
          ...base,
          word: str(c.word),
          weight: str(c.weight),
          max_words: num(c.max_words),
          min_font: num(c.min_font),
          max_font: num(c.max_font),
          scale: oneOf(c.scale, ['linear', 'sqrt'] as const),
          rotation: oneOf(c.rotation, ['none', 'hv', 'mixed'] as const),
        };
      case 'histogram':
        return {
          type,
          ...base,
          ...axes,
          value: str(c.value),
          series: str(c.series),
          bins: num(c.bins),
          bin_width: num(c.bin_width),
          min: num(c.min),
          max: num(c.max),
          show: oneOf(c.show, ['count', 'percent', 'cumulative'] as const),
        };
      case 'hierarchy':
        return {
          type,
          ...base,
          layout: oneOf(c.layout, ['treemap', 'sunburst', 'circles', 'partition'] as const) ?? (given === 'sunburst' ? 'sunburst' : undefined),
          levels: strList(c.levels),
          value: str(c.value),
          color_by: oneOf(c.color_by, ['group', 'depth'] as const),
        };
    }
  };
  return { config: withoutUndefined(build()) };
}
