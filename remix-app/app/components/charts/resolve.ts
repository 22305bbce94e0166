/**
 * Which result column feeds which role of a chart: the configured ones, else defaults by position and
 * data type (docs: chart-types/*). A configured column the result lacks makes the report fall back to
 * a table with a note naming it; a result that cannot feed the chart at all does the same.
 */
import type { DataField } from '../../lib/types';
import type { ChartConfig } from './config';

type Kind = 'numeric' | 'temporal' | 'dimension' | 'other';

const NUMERIC = /^(Integer|BigInt|Float|Decimal|Number)$/i;
const TEMPORAL = /^(Date|DateTime|Timestamp)$/i;
const DIMENSION = /^(String|Boolean|Time|Text)$/i;

function kindOf(field: DataField | undefined): Kind {
  if (!field) return 'other';
  const t = field.data_type;
  if (NUMERIC.test(t)) return 'numeric';
  if (TEMPORAL.test(t)) return 'temporal';
  if (DIMENSION.test(t)) return 'dimension';
  return 'other';
}
const isNumeric = (f: DataField | undefined) => kindOf(f) === 'numeric';
const isDimension = (f: DataField | undefined) => kindOf(f) === 'dimension' || kindOf(f) === 'temporal';

/** Column positions (indexes into each row) per role. */
export interface Roles {
  [role: string]: number | number[] | undefined;
}

export type Resolved<R extends Roles = Roles> = { ok: true; roles: R } | { ok: false; note: string };

class Picker {
  private readonly byName: Map<string, number>;
  readonly missing: string[] = [];
  constructor(readonly fields: DataField[]) {
    this.byName = new Map(fields.map((f, i) => [f.name, Number.isInteger(f.idx) ? f.idx : i]));
  }
  index(f: DataField): number {
    return this.byName.get(f.name)!;
  }
  /** The configured column's index (recording it as missing when absent), or undefined when not configured. */
  named(name: string | undefined): number | undefined {
    if (name === undefined) return undefined;
    const i = this.byName.get(name);
    if (i === undefined) this.missing.push(name);
    return i;
  }
  first(test: (f: DataField) => boolean, except: (number | undefined)[] = []): number | undefined {
    const f = this.fields.find((x) => test(x) && !except.includes(this.index(x)));
    return f ? this.index(f) : undefined;
  }
  all(test: (f: DataField) => boolean, except: (number | undefined)[] = []): number[] {
    return this.fields.filter((x) => test(x) && !except.includes(this.index(x))).map((x) => this.index(x));
  }
}

const miss = (p: Picker): Resolved | null =>
  p.missing.length
    ? { ok: false, note: `The chart uses ${p.missing.map((m) => `“${m}”`).join(', ')}, which the result does not have; showing the data as a table.` }
    : null;
const need = (what: string): Resolved => ({ ok: false, note: `This chart needs ${what}; showing the data as a table.` });
const num = (v: string | number | undefined, p: Picker): number | undefined => (typeof v === 'string' ? p.named(v) : undefined);

export function resolveRoles(config: ChartConfig, fields: DataField[]): Resolved {
  const p = new Picker(fields);
  const numeric = (f: DataField) => isNumeric(f);
  const dim = (f: DataField) => isDimension(f);
  switch (config.type) {
    case 'table':
      return { ok: true, roles: {} };
    case 'number': {
      const value = p.named(config.value) ?? p.first(numeric) ?? p.first(() => true);
      const compare = config.compare === 'second_row' ? undefined : p.named(config.compare);
      return miss(p) ?? (value === undefined ? need('a column') : { ok: true, roles: { value, compare, secondRow: config.compare === 'second_row' ? 1 : 0 } });
    }
    case 'gauge': {
      const value = p.named(config.value) ?? p.first(numeric);
      const roles = { value, min: num(config.min, p), max: num(config.max, p), target: num(config.target, p) };
      return miss(p) ?? (value === undefined ? need('a numeric column') : { ok: true, roles });
    }
    case 'pie': {
      const label = p.named(config.label) ?? p.first(dim);
      const value = p.named(config.value) ?? p.first(numeric, [label]);
      return miss(p) ?? (label === undefined || value === undefined ? need('a label and a numeric value') : { ok: true, roles: { label, value } });
    }
    case 'line':
    case 'bar': {
      const x = p.named(config.x) ?? p.first(dim) ?? (config.type === 'line' ? p.first(numeric) : undefined);
      let series = p.named(config.series);
      // A line chart's second axis: its columns are the chart's values too, drawn against the right axis.
      const right = config.type === 'line' ? (config.y_right?.map((n) => p.named(n)).filter((i): i is number => i !== undefined) ?? []) : [];
      let y = config.y?.map((n) => p.named(n)).filter((i): i is number => i !== undefined);
      if (!y?.length) y = p.all(numeric, [x, series, ...right]);
      y = y.filter((i) => !right.includes(i));
      if (right.length) {
        if (series !== undefined)
          return miss(p) ?? { ok: false, note: 'A second y-axis needs one column per line (wide data), not a series column; the data is shown as a table.' };
        return (
          miss(p) ??
          (x === undefined || y.length === 0 ? need('an x column and a numeric value for the left axis') : { ok: true, roles: { x, y, yRight: right } })
        );
      }
      // Long data: a second dimension column names the series (when y was not chosen explicitly).
      if (series === undefined && !config.y?.length && y.length === 1) series = p.first(dim, [x]);
      if (series !== undefined && !config.y?.length) y = y.slice(0, 1);
      return miss(p) ?? (x === undefined || y.length === 0 ? need('an x column and a numeric value') : { ok: true, roles: { x, y, series } });
    }
    case 'xy_bubble': {
      const nums = p.all(numeric);
      const x = p.named(config.x) ?? p.first((f) => isNumeric(f) || kindOf(f) === 'temporal');
      const y = p.named(config.y) ?? nums.find((i) => i !== x);
      const size = p.named(config.size) ?? (config.x || config.y ? undefined : nums.find((i) => i !== x && i !== y));
      const label = p.named(config.label) ?? p.first((f) => kindOf(f) === 'dimension');
      const series = p.named(config.series);
      return miss(p) ?? (x === undefined || y === undefined ? need('two numeric columns') : { ok: true, roles: { x, y, size, label, series } });
    }
    case 'word_cloud': {
      const word = p.named(config.word) ?? p.first(dim);
      const weight = p.named(config.weight) ?? p.first(numeric, [word]);
      return miss(p) ?? (word === undefined || weight === undefined ? need('a text and a numeric weight') : { ok: true, roles: { word, weight } });
    }
    case 'histogram': {
      const value = p.named(config.value) ?? p.first((f) => isNumeric(f) || kindOf(f) === 'temporal');
      const series = p.named(config.series);
      return miss(p) ?? (value === undefined ? need('a numeric column of values') : { ok: true, roles: { value, series } });
    }
    case 'hierarchy': {
      const value = p.named(config.value) ?? p.first(numeric);
      const levels = config.levels?.map((n) => p.named(n)).filter((i): i is number => i !== undefined) ?? p.all(dim, [value]);
      return miss(p) ?? (value === undefined || levels.length === 0 ? need('a dimension and a numeric value') : { ok: true, roles: { levels, value } });
    }
    case 'pivot': {
      const dims = p.all((f) => isDimension(f) || kindOf(f) === 'numeric');
      const rows = p.named(config.rows) ?? dims[0];
      const columns = p.named(config.columns) ?? dims.find((i) => i !== rows);
      const value = p.named(config.value) ?? p.first(numeric, [rows, columns]);
      return (
        miss(p) ??
        (rows === undefined || columns === undefined || value === undefined
          ? need('a row column, a column column and a numeric value')
          : { ok: true, roles: { rows, columns, value } })
      );
    }
    case 'multi_pivot': {
      const valueCols = config.values?.map((v) => p.named(v.column)).filter((i): i is number => i !== undefined);
      const rows = config.rows?.map((n) => p.named(n)).filter((i): i is number => i !== undefined);
      const cols = config.columns?.map((n) => p.named(n)).filter((i): i is number => i !== undefined) ?? [];
      const values = valueCols?.length ? valueCols : p.all(numeric, [...(rows ?? []), ...cols]);
      const rowDims = rows ?? p.all(dim, [...cols, ...values]);
      return miss(p) ?? (values.length === 0 ? need('at least one numeric value') : { ok: true, roles: { rows: rowDims, columns: cols, values } });
    }
    case 'map': {
      const lat = p.named(config.latitude) ?? p.first((f) => /^(lat|latitude)$/i.test(f.name));
      const lng = p.named(config.longitude) ?? p.first((f) => /^(lng|lon|long|longitude)$/i.test(f.name));
      const point = config.kind === 'point' || (config.kind === undefined && lat !== undefined && lng !== undefined);
      if (point) {
        const size = p.named(config.size) ?? p.first(numeric, [lat, lng]);
        const label = p.named(config.label) ?? p.first((f) => kindOf(f) === 'dimension');
        return (
          miss(p) ??
          (lat === undefined || lng === undefined ? need('latitude and longitude columns') : { ok: true, roles: { lat, lng, size, label, point: 1 } })
        );
      }
      const region = p.named(config.region) ?? p.first((f) => kindOf(f) === 'dimension');
      const value = p.named(config.value) ?? p.first(numeric, [region]);
      return (
        miss(p) ??
        (region === undefined || value === undefined ? need('a region column and a numeric value') : { ok: true, roles: { region, value, point: 0 } })
      );
    }
  }
}
