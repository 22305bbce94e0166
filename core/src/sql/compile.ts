/**
 * The parameter compiler: turns report SQL written with Cairn's filter syntax into SQL text with
 * placeholders plus a list of values. Values never enter the SQL text — only placeholders do.
 *
 *   {[expr]=var}   condition on expr (TRUE when var is unset; = / IN for lists; >= AND < for ranges)
 *   {col=var}      the same with a bare column name
 *   {[expr]:var}   transformation of expr by the aggregation built-in (date_trunc)
 *   {var.start} / {var.end}   one bound of a range as a value
 *
 * Text inside string literals, quoted identifiers and comments is left untouched.
 * This is the foundation subset; snippets and time zones build on it later.
 */
import { ApiError } from '../errors.ts';
import {
  AGGREGATIONS, RANGE_CONTROLS, coerceValue, parseRange,
  type Aggregation, type FilterDefinition, type InputParameters, type TimeRange,
} from './params.ts';

export type Dialect = 'postgres' | 'mysql';

export interface CompileOptions {
  sql: string;
  dialect: Dialect;
  filters: readonly FilterDefinition[];
  parameters: InputParameters;
}

export interface CompiledQuery {
  text: string;
  values: unknown[];
  /** Variables the SQL refers to (built-ins included), in order of first use. */
  variables: string[];
}

type Resolved =
  | { kind: 'unset' }
  | { kind: 'list'; values: unknown[] }
  | { kind: 'range'; range: TimeRange }
  | { kind: 'aggregation'; value: Aggregation };

const TOKEN = /\{\s*(?:\[([^\]\n]+)\]|([A-Za-z_][\w.]*))\s*([=:])\s*([A-Za-z_][\w-]*)\s*\}|\{\s*([A-Za-z_][\w-]*)\.(start|end)\s*\}/y;

export function compileSql(opts: CompileOptions): CompiledQuery {
  const values: unknown[] = [];
  const variables: string[] = [];
  const place = (v: unknown) => {
    values.push(v);
    return opts.dialect === 'postgres' ? `$${values.length}` : '?';
  };
  const resolve = memoResolver(opts);
  const sql = opts.sql;
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    const skip = skipLiteral(sql, i);
    if (skip > i) {
      out += sql.slice(i, skip);
      i = skip;
      continue;
    }
    if (ch === '{') {
      TOKEN.lastIndex = i;
      const m = TOKEN.exec(sql);
      if (m) {
        const [whole, bracketExpr, bareExpr, op, variable, rangeVar, bound] = m;
        const name = (variable ?? rangeVar)!;
        if (!variables.includes(name)) variables.push(name);
        const r = resolve(name);
        if (rangeVar) {
          out += rangeBound(r, bound as 'start' | 'end', place);
        } else if (op === '=') {
          out += condition((bracketExpr ?? bareExpr)!.trim(), r, place);
        } else {
          out += transformation((bracketExpr ?? bareExpr)!.trim(), r, name, opts.dialect, place);
        }
        i += whole.length;
        continue;
      }
    }
    out += ch;
    i++;
  }
  return { text: out, values, variables };
}

/** Index just past a string literal, quoted identifier or comment starting at i (or i itself). */
function skipLiteral(sql: string, i: number): number {
  const ch = sql[i];
  if (ch === "'" || ch === '"' || ch === '`') {
    let j = i + 1;
    while (j < sql.length) {
      if (sql[j] === ch) {
        if (sql[j + 1] === ch) j += 2;
        else return j + 1;
      } else if (sql[j] === '\\' && ch !== '"') j += 2;
      else j++;
    }
    return sql.length;
  }
  if (ch === '-' && sql[i + 1] === '-') {
    const nl = sql.indexOf('\n', i);
    return nl === -1 ? sql.length : nl;
  }
  if (ch === '/' && sql[i + 1] === '*') {
    const end = sql.indexOf('*/', i + 2);
    return end === -1 ? sql.length : end + 2;
  }
  return i;
}

function memoResolver(opts: CompileOptions) {
  const cache = new Map<string, Resolved>();
  return (name: string): Resolved => {
    let r = cache.get(name);
    if (!r) {
      r = resolveVariable(name, opts);
      cache.set(name, r);
    }
    return r;
  };
}

function resolveVariable(name: string, opts: CompileOptions): Resolved {
  const p = opts.parameters;
  if (name === 'timerange') {
    if (!p.timerange) return { kind: 'unset' };
    return { kind: 'range', range: parseRange(p.timerange, '/parameters/timerange') };
  }
  if (name === 'aggregation') {
    const a = p.aggregation ?? 'day';
    if (!(AGGREGATIONS as readonly string[]).includes(a)) {
      throw new ApiError('invalid_attribute', `Unknown aggregation "${a}"; use one of ${AGGREGATIONS.join(', ')}.`, {
        source: { pointer: '/parameters/aggregation' },
      });
    }
    return { kind: 'aggregation', value: a as Aggregation };
  }
  const def = opts.filters.find((f) => f.variable_name === name);
  const idx = (p.filters ?? []).findIndex((f) => f.variable_name === name);
  const selection = idx >= 0 ? p.filters![idx]! : undefined;
  if (!selection || selection.selected_values.length === 0) return { kind: 'unset' };
  const pointer = `/parameters/filters/${idx}/selected_values`;
  if (def && (RANGE_CONTROLS as readonly string[]).includes(def.control_type)) {
    const sv = selection.selected_values;
    const raw = sv.length === 1 ? sv[0] : sv;
    return { kind: 'range', range: parseRange(raw, pointer, def.value_type === 'DATE') };
  }
  const valueType = def?.value_type ?? 'TEXT';
  return {
    kind: 'list',
    values: selection.selected_values.map((v, n) => coerceValue(v, valueType, `${pointer}/${n}`)),
  };
}

function condition(expr: string, r: Resolved, place: (v: unknown) => string): string {
  switch (r.kind) {
    case 'unset':
    case 'aggregation':
      return 'TRUE';
    case 'list':
      if (r.values.length === 1) return r.values[0] === null ? `(${expr} IS NULL)` : `(${expr} = ${place(r.values[0])})`;
      return `(${expr} IN (${r.values.map(place).join(', ')}))`;
    case 'range': {
      const parts: string[] = [];
      if (r.range.start) parts.push(`${expr} >= ${place(r.range.start)}`);
      if (r.range.end) parts.push(`${expr} < ${place(r.range.end)}`);
      return parts.length ? `(${parts.join(' AND ')})` : 'TRUE';
    }
  }
}

function rangeBound(r: Resolved, bound: 'start' | 'end', place: (v: unknown) => string): string {
  if (r.kind !== 'range') return 'NULL';
  const v = bound === 'start' ? r.range.start : r.range.end;
  return v ? place(v) : 'NULL';
}

const MYSQL_FORMATS: Record<string, string> = {
  second: '%Y-%m-%d %H:%i:%s', minute: '%Y-%m-%d %H:%i:00', hour: '%Y-%m-%d %H:00:00', day: '%Y-%m-%d',
  month: '%Y-%m-01', year: '%Y-01-01',
};

function transformation(expr: string, r: Resolved, name: string, dialect: Dialect, place: (v: unknown) => string): string {
  if (r.kind !== 'aggregation') {
    throw new ApiError('invalid_attribute', `"{[${expr}]:${name}}" needs the aggregation variable, not "${name}".`, {
      source: { pointer: '/sql_query' },
    });
  }
  const a = r.value;
  if (dialect === 'postgres') {
    if (a === 'all_time') return `MIN(${expr}) OVER ()`;
    if (a === 'week_sunday') return `(date_trunc('week', (${expr}) + interval '1 day') - interval '1 day')`;
    return `date_trunc(${place(a)}, ${expr})`;
  }
  if (a === 'all_time') return `MIN(${expr}) OVER ()`;
  if (a === 'week') return `DATE(DATE_SUB(${expr}, INTERVAL WEEKDAY(${expr}) DAY))`;
  if (a === 'week_sunday') return `DATE(DATE_SUB(${expr}, INTERVAL DAYOFWEEK(${expr}) - 1 DAY))`;
  if (a === 'quarter') return `MAKEDATE(YEAR(${expr}), 1) + INTERVAL (QUARTER(${expr}) - 1) QUARTER`;
  return `DATE_FORMAT(${expr}, ${place(MYSQL_FORMATS[a])})`;
}
