/**
 * The chart configuration editor as data: for each chart type, the options it offers (which column
 * goes where, switches, choices, numbers), read from and written to `chart_configuration` in the shape
 * components/charts/config.ts defines. Empty values are removed, so the chart's defaults apply.
 */
import { CHART_TYPES, type ChartType } from '../components/charts/config';

export type ColumnKind = 'any' | 'numeric' | 'dimension';

export type ChartControl =
  | { key: string; label: string; kind: 'column'; accepts: ColumnKind; allowSecondRow?: boolean }
  | { key: string; label: string; kind: 'columns'; accepts: ColumnKind }
  /**
   * `on` is what the chart does when the option is absent; `explicit` marks a switch whose default
   * depends on the data (such as point markers on short lines), so its state is always stored.
   */
  | { key: string; label: string; kind: 'boolean'; on?: boolean; explicit?: boolean }
  | { key: string; label: string; kind: 'choice'; options: readonly { value: string; label: string }[] }
  | { key: string; label: string; kind: 'number'; min?: number; max?: number; step?: number }
  | { key: string; label: string; kind: 'text' }
  /** A column name or a fixed number (gauge min, max, target). */
  | { key: string; label: string; kind: 'column_or_number' }
  /** multi_pivot values: columns with an aggregation each. */
  | { key: string; label: string; kind: 'value_list' }
  /** gauge bands: upper bounds with a colour from the dashboard's scheme. */
  | { key: string; label: string; kind: 'bands' }
  /** color_start: which colour of the dashboard's scheme comes first. */
  | { key: string; label: string; kind: 'color_start' }
  /** A header per result column (`labels` of the table): column name → text; empty keeps the column's name. */
  | { key: string; label: string; kind: 'label_map' };

const opt = (...pairs: [string, string][]) => pairs.map(([value, label]) => ({ value, label }));

export const MULTI_PIVOT_AGGREGATIONS = ['sum', 'avg', 'median', 'min', 'max', 'count', 'count_distinct', 'concat'] as const;

const CONTROLS: Record<ChartType, ChartControl[]> = {
  table: [
    { key: 'columns', label: 'Columns to show, in order', kind: 'columns', accepts: 'any' },
    { key: 'hidden', label: 'Hidden columns', kind: 'columns', accepts: 'any' },
    { key: 'sort.column', label: 'Sort by', kind: 'column', accepts: 'any' },
    { key: 'sort.desc', label: 'Sort descending', kind: 'boolean' },
    { key: 'totals', label: 'Total row for', kind: 'columns', accepts: 'numeric' },
    { key: 'size', label: 'Text size', kind: 'choice', options: opt(['S', 'Small'], ['M', 'Medium'], ['L', 'Large'], ['XL', 'Extra large']) },
    { key: 'wrap', label: 'Wrap long text', kind: 'boolean' },
    { key: 'freeze_first', label: 'Freeze the first column', kind: 'boolean' },
    { key: 'labels', label: 'Column headers', kind: 'label_map' },
  ],
  pivot: [
    { key: 'rows', label: 'Rows', kind: 'column', accepts: 'any' },
    { key: 'columns', label: 'Columns', kind: 'column', accepts: 'any' },
    { key: 'value', label: 'Value', kind: 'column', accepts: 'numeric' },
    { key: 'row_totals', label: 'Row totals', kind: 'boolean' },
    { key: 'column_totals', label: 'Column totals', kind: 'boolean' },
    {
      key: 'percentage',
      label: 'Show as percentage of',
      kind: 'choice',
      options: opt(['row', 'the row'], ['column', 'the column'], ['total', 'the total'], ['first', 'the first column (cohorts)']),
    },
    { key: 'color_values', label: 'Colour cells by value', kind: 'boolean' },
    { key: 'sort_rows', label: 'Sort rows by', kind: 'choice', options: opt(['label', 'label'], ['result', 'result']) },
    { key: 'sort_columns', label: 'Sort columns by', kind: 'choice', options: opt(['label', 'label'], ['result', 'result']) },
    { key: 'empty', label: 'Empty cells show', kind: 'text' },
  ],
  multi_pivot: [
    { key: 'rows', label: 'Row levels', kind: 'columns', accepts: 'any' },
    { key: 'columns', label: 'Column levels', kind: 'columns', accepts: 'any' },
    { key: 'values', label: 'Values', kind: 'value_list' },
    { key: 'subtotals', label: 'Subtotals', kind: 'boolean', on: true },
    { key: 'grand_totals', label: 'Grand totals', kind: 'boolean', on: true },
  ],
  number: [
    { key: 'value', label: 'Value', kind: 'column', accepts: 'any' },
    { key: 'compare', label: 'Compare with (KPI)', kind: 'column', accepts: 'numeric', allowSecondRow: true },
    { key: 'change_as', label: 'Show the change as', kind: 'choice', options: opt(['percent', 'percentage'], ['absolute', 'absolute difference']) },
    { key: 'down_is_good', label: 'A decrease is good (green arrow down)', kind: 'boolean' },
    { key: 'label', label: 'Label under the number', kind: 'text' },
    { key: 'prefix', label: 'Prefix', kind: 'text' },
    { key: 'suffix', label: 'Suffix', kind: 'text' },
  ],
  pie: [
    { key: 'label', label: 'Slice labels from', kind: 'column', accepts: 'dimension' },
    { key: 'value', label: 'Slice sizes from', kind: 'column', accepts: 'numeric' },
    { key: 'donut', label: 'Donut', kind: 'boolean', on: true },
    {
      key: 'slice_labels',
      label: 'Text on slices',
      kind: 'choice',
      options: opt(['none', 'none'], ['name', 'name'], ['value', 'value'], ['percent', 'percentage']),
    },
    { key: 'max_slices', label: 'Most slices (the rest is “Other”)', kind: 'number', min: 1, max: 100 },
  ],
  line: [
    { key: 'x', label: 'X axis', kind: 'column', accepts: 'any' },
    { key: 'y', label: 'Y values', kind: 'columns', accepts: 'numeric' },
    { key: 'y_right', label: 'Y values on a second axis (right)', kind: 'columns', accepts: 'numeric' },
    { key: 'y_right_title', label: 'Right axis title', kind: 'text' },
    { key: 'series', label: 'Series from', kind: 'column', accepts: 'dimension' },
    { key: 'stacked', label: 'Stacked', kind: 'boolean' },
    { key: 'area', label: 'Fill the area', kind: 'boolean', explicit: true },
    { key: 'smooth', label: 'Smooth lines', kind: 'boolean', on: true },
    { key: 'points', label: 'Show points', kind: 'boolean', explicit: true },
    { key: 'zero', label: 'Y axis starts at zero', kind: 'boolean', on: true },
    { key: 'reference_line', label: 'Reference line at', kind: 'number' },
    { key: 'missing', label: 'Missing values', kind: 'choice', options: opt(['gap', 'leave a gap'], ['connect', 'connect'], ['zero', 'as zero']) },
  ],
  bar: [
    { key: 'x', label: 'Categories (x axis)', kind: 'column', accepts: 'any' },
    { key: 'y', label: 'Values', kind: 'columns', accepts: 'numeric' },
    { key: 'series', label: 'Series from', kind: 'column', accepts: 'dimension' },
    { key: 'layout', label: 'Bars', kind: 'choice', options: opt(['vertical', 'vertical'], ['horizontal', 'horizontal']) },
    { key: 'grouping', label: 'Stacking', kind: 'choice', options: opt(['grouped', 'side by side'], ['stacked', 'stacked'], ['percent', 'stacked to 100 %']) },
    { key: 'labels', label: 'Values on the bars', kind: 'boolean' },
  ],
  map: [
    { key: 'kind', label: 'Map of', kind: 'choice', options: opt(['region', 'regions (countries, states)'], ['point', 'points (latitude/longitude)']) },
    { key: 'region_set', label: 'Regions', kind: 'choice', options: opt(['world', 'countries of the world'], ['us_states', 'US states']) },
    { key: 'region', label: 'Region column', kind: 'column', accepts: 'dimension' },
    { key: 'value', label: 'Value', kind: 'column', accepts: 'numeric' },
    { key: 'latitude', label: 'Latitude', kind: 'column', accepts: 'numeric' },
    { key: 'longitude', label: 'Longitude', kind: 'column', accepts: 'numeric' },
    { key: 'size', label: 'Point size', kind: 'column', accepts: 'numeric' },
    { key: 'label', label: 'Label', kind: 'column', accepts: 'dimension' },
  ],
  gauge: [
    { key: 'value', label: 'Value', kind: 'column', accepts: 'numeric' },
    { key: 'min', label: 'Minimum', kind: 'column_or_number' },
    { key: 'max', label: 'Maximum', kind: 'column_or_number' },
    { key: 'target', label: 'Target', kind: 'column_or_number' },
    { key: 'bands', label: 'Colour bands', kind: 'bands' },
    { key: 'down_is_good', label: 'Lower is better', kind: 'boolean' },
  ],
  xy_bubble: [
    { key: 'x', label: 'X', kind: 'column', accepts: 'any' },
    { key: 'y', label: 'Y', kind: 'column', accepts: 'numeric' },
    { key: 'size', label: 'Bubble size', kind: 'column', accepts: 'numeric' },
    { key: 'label', label: 'Label', kind: 'column', accepts: 'dimension' },
    { key: 'series', label: 'Series from', kind: 'column', accepts: 'dimension' },
    { key: 'trend_line', label: 'Trend line', kind: 'boolean' },
    { key: 'log_x', label: 'Logarithmic x axis', kind: 'boolean' },
  ],
  word_cloud: [
    { key: 'word', label: 'Words', kind: 'column', accepts: 'dimension' },
    { key: 'weight', label: 'Weight', kind: 'column', accepts: 'numeric' },
    { key: 'max_words', label: 'Most words', kind: 'number', min: 1, max: 1000 },
    { key: 'min_font', label: 'Smallest font (px)', kind: 'number', min: 4, max: 200 },
    { key: 'max_font', label: 'Largest font (px)', kind: 'number', min: 4, max: 400 },
    { key: 'scale', label: 'Scale', kind: 'choice', options: opt(['linear', 'linear'], ['sqrt', 'square root']) },
    { key: 'rotation', label: 'Rotation', kind: 'choice', options: opt(['none', 'none'], ['hv', 'horizontal and vertical'], ['mixed', 'mixed']) },
  ],
  histogram: [
    { key: 'value', label: 'Values', kind: 'column', accepts: 'any' },
    { key: 'series', label: 'Series from', kind: 'column', accepts: 'dimension' },
    { key: 'bins', label: 'Number of bins', kind: 'number', min: 1, max: 500 },
    { key: 'bin_width', label: 'Bin width', kind: 'number' },
    { key: 'min', label: 'From', kind: 'number' },
    { key: 'max', label: 'To', kind: 'number' },
    { key: 'show', label: 'Show', kind: 'choice', options: opt(['count', 'counts'], ['percent', 'percentages'], ['cumulative', 'cumulative']) },
  ],
  hierarchy: [
    {
      key: 'layout',
      label: 'Drawn as',
      kind: 'choice',
      options: opt(['treemap', 'treemap'], ['sunburst', 'sunburst'], ['circles', 'circle packing'], ['partition', 'partition (icicle)']),
    },
    { key: 'levels', label: 'Levels, outermost first', kind: 'columns', accepts: 'dimension' },
    { key: 'value', label: 'Size', kind: 'column', accepts: 'numeric' },
    { key: 'color_by', label: 'Colour by', kind: 'choice', options: opt(['group', 'top-level group'], ['depth', 'depth']) },
  ],
};

/** Options every chart has: the number format and, for charts with series, the legend. */
const FORMAT_CONTROLS: ChartControl[] = [
  { key: 'format.decimals', label: 'Decimals', kind: 'number', min: 0, max: 10 },
  { key: 'format.prefix', label: 'Prefix', kind: 'text' },
  { key: 'format.suffix', label: 'Suffix', kind: 'text' },
  { key: 'format.compact', label: 'Compact (12.3K, 4.5M)', kind: 'boolean' },
  { key: 'format.percent', label: 'As percentage (× 100, %)', kind: 'boolean' },
];
const AXIS_TITLE_CONTROLS: ChartControl[] = [
  { key: 'x_title', label: 'X axis title', kind: 'text' },
  { key: 'y_title', label: 'Y axis title', kind: 'text' },
];
const COLOR_START_CONTROL: ChartControl = { key: 'color_start', label: 'First colour', kind: 'color_start' };
const WITH_AXES: readonly ChartType[] = ['line', 'bar', 'xy_bubble', 'histogram'];
const WITH_COLORS: readonly ChartType[] = ['pivot', 'pie', 'line', 'bar', 'map', 'gauge', 'xy_bubble', 'word_cloud', 'histogram', 'hierarchy'];
const LEGEND_CONTROL: ChartControl = {
  key: 'legend',
  label: 'Legend',
  kind: 'choice',
  options: opt(['top', 'top'], ['right', 'right'], ['bottom', 'bottom'], ['none', 'none']),
};
/** Types whose view draws a legend from the `legend` option (the map's colour key and the hierarchy have none to place). */
const WITH_LEGEND: readonly ChartType[] = ['pie', 'line', 'bar', 'xy_bubble', 'histogram'];

export function chartControls(type: ChartType): ChartControl[] {
  return [
    ...CONTROLS[type],
    ...(WITH_AXES.includes(type) ? AXIS_TITLE_CONTROLS : []),
    ...(WITH_LEGEND.includes(type) ? [LEGEND_CONTROL] : []),
    ...(WITH_COLORS.includes(type) ? [COLOR_START_CONTROL] : []),
    ...FORMAT_CONTROLS,
  ];
}

export function isChartType(t: unknown): t is ChartType {
  return typeof t === 'string' && (CHART_TYPES as readonly string[]).includes(t);
}

type Config = Record<string, unknown>;

export function getPath(config: Config, path: string): unknown {
  let cur: unknown = config;
  for (const part of path.split('.')) {
    if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Config)[part];
  }
  return cur;
}

const empty = (v: unknown) =>
  v === undefined ||
  v === null ||
  v === '' ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && !Array.isArray(v) && v !== null && Object.keys(v).length === 0);

/** A copy of the configuration with one option set; an empty value removes the option (and empty parents). */
export function setPath(config: Config, path: string, value: unknown): Config {
  const [head, ...rest] = path.split('.');
  const next: Config = { ...config };
  if (rest.length === 0) {
    if (empty(value)) delete next[head!];
    else next[head!] = value;
    return next;
  }
  const child = next[head!] && typeof next[head!] === 'object' && !Array.isArray(next[head!]) ? (next[head!] as Config) : {};
  const updated = setPath(child, rest.join('.'), value);
  if (empty(updated)) delete next[head!];
  else next[head!] = updated;
  return next;
}

/**
 * The configuration for another chart type: the number format and legend stay, and options the new type
 * also has (the same key and kind, such as x/y/series between line and bar) carry over.
 */
/** Types whose view follows a drill-down on a click (bars, slices, table rows). */
export const WITH_DRILLDOWN: readonly ChartType[] = ['table', 'bar', 'pie'];

export function switchChartType(config: Config, type: ChartType): Config {
  const out: Config = { type };
  if (config.format) out.format = config.format;
  if (config.legend && WITH_LEGEND.includes(type)) out.legend = config.legend;
  if (config.color_start !== undefined && WITH_COLORS.includes(type)) out.color_start = config.color_start;
  if (WITH_AXES.includes(type)) for (const k of ['x_title', 'y_title']) if (!empty(config[k])) out[k] = config[k];
  if (config.drilldown && WITH_DRILLDOWN.includes(type)) out.drilldown = config.drilldown;
  const from = isChartType(config.type) ? CONTROLS[config.type] : [];
  for (const c of CONTROLS[type]) {
    const before = from.find((x) => x.key === c.key && x.kind === c.kind);
    if (!before || c.key.includes('.')) continue;
    const v = config[c.key];
    if (!empty(v)) out[c.key] = v;
  }
  return out;
}

/** Which result columns a control offers, by the fields' data types (numbers for values, others for labels). */
export function columnsFor(accepts: ColumnKind, fields: readonly { name: string; data_type: string }[]): string[] {
  const numeric = (t: string) => /^(Integer|BigInt|Float|Decimal|Number)$/i.test(t);
  if (accepts === 'any') return fields.map((f) => f.name);
  const matching = fields.filter((f) => (accepts === 'numeric' ? numeric(f.data_type) : !numeric(f.data_type))).map((f) => f.name);
  // Offer everything when no column has the expected type (the chart explains what it needs).
  return matching.length ? matching : fields.map((f) => f.name);
}

/** A switch's new value: absent when it equals what the chart does by default, so defaults keep applying. */
export function switchValue(control: { on?: boolean; explicit?: boolean }, checked: boolean): boolean | undefined {
  if (control.explicit) return checked;
  return checked === (control.on ?? false) ? undefined : checked;
}

/** The stored header map read back: only string entries count. */
export function readLabelMap(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/**
 * The header map with one column renamed: a blank label removes the entry (the column's own name
 * shows again), and an empty map becomes undefined so the option is dropped from the configuration.
 */
export function setLabel(value: unknown, column: string, label: string): Record<string, string> | undefined {
  const next = { ...readLabelMap(value) };
  if (label.trim() === '') delete next[column];
  else next[column] = label;
  return Object.keys(next).length ? next : undefined;
}
