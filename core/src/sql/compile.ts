/**
 * The parameter compiler: turns SQL written with Cairn's syntax into SQL text with placeholders plus
 * the list of values to bind. Values never enter the SQL text — the text only gains placeholders and
 * fixed SQL written by the compiler (see dialects.ts). Pure: no I/O.
 *
 *   {[expr]=var} / {col=var}          condition: TRUE when unset; = or IN for values (IS NULL for a
 *                                     selected null); >= AND < for ranges; .previous / .next selectors
 *   {[expr]:var} / {col:aggregation}  transformation: time buckets in the dashboard's time zone
 *   {var.start} {var.end} {var.value} {aggregation}   one value ({var.end}: the exclusive end the
 *                                     condition uses, e.g. the day after a date range's last day)
 *   [snippet] [snippet(1, 'a')]       snippets (nested, with parameters); [CAIRN_USER_EMAIL] … built-ins
 *
 * Literals, quoted identifiers and comments are never rewritten (lexer.ts).
 */
import type { Part } from './dialects.ts';
import { condition, sqlError, transformation, value } from './dialects.ts';
import type { Dialect } from './lexer.ts';
import { BUILT_IN_VARIABLES, type FilterDefinition, type InputParameters } from './params.ts';
import { resolveVariable, type Selection } from './selection.ts';
import type { SnippetDefinition, SqlContext } from './snippets.ts';
import type { ExprToken, FilterToken } from './syntax.ts';
import { checkTimeZone } from '../time.ts';
import type { TimeContext } from './values.ts';
import { Walker } from './walker.ts';

export type { Dialect };

export interface CompileOptions {
  sql: string;
  dialect: Dialect;
  filters: readonly FilterDefinition[];
  parameters: InputParameters;
  /**
   * The dashboard's effective time zone (see resolveDashboardTimeZone): ranges are read and buckets cut
   * in it. Default: the data time zone.
   */
  timeZone?: string | null;
  /** The datasource's data_time_zone: zone-less timestamps are in it. Default UTC. */
  dataTimeZone?: string | null;
  /** The dashboard's filters_configuration.aggregation_options, which govern the built-in `aggregation`. */
  aggregationOptions?: readonly string[] | null;
  /** Snippets that `[name]` may refer to (only these names are replaced). */
  snippets?: readonly SnippetDefinition[];
  /** Values of the built-in snippets. */
  context?: SqlContext | null;
  /** The moment relative ranges (`last_7_days`) are resolved at, in milliseconds; default: now. */
  now?: number;
}

export interface CompiledQuery {
  text: string;
  /**
   * Values in placeholder order: strings (dates, times and timestamps as the database's literal text),
   * numbers (integers beyond 2^53 as digit strings), booleans and nulls. Send strings as untyped text
   * parameters: postgres.js re-serialises any date or timestamp parameter through a JS Date (in UTC)
   * unless its `date` type is overridden to pass strings through.
   */
  values: unknown[];
  /** Variables the SQL refers to (built-ins included), in order of first use. */
  variables: string[];
  /** Variables with neither a definition nor a built-in meaning: ad hoc filters to create. */
  unknownVariables: string[];
  /** Custom snippets used, nested ones included. */
  snippets: string[];
  /** The zone ranges and buckets were computed in. */
  timeZone: string;
  /**
   * Run the query with the session time zone set to this (the data time zone), so zone-less values and
   * MySQL TIMESTAMP columns are read as the data time zone's wall clock.
   */
  sessionTimeZone: string;
}

export function compileSql(opts: CompileOptions): CompiledQuery {
  const dataZone = opts.dataTimeZone ? checkTimeZone(opts.dataTimeZone, 'The data time zone', '/data_time_zone') : 'UTC';
  const zone = opts.timeZone ? checkTimeZone(opts.timeZone, 'The time zone', '/parameters/tz') : dataZone;
  const time: TimeContext = { zone, dataZone, ...(opts.now === undefined ? {} : { now: opts.now }) };
  const target = { dialect: opts.dialect, time };
  const defined = new Set(opts.filters.map((f) => f.variable_name));
  const variables: string[] = [];
  const unknownVariables: string[] = [];
  const cache = new Map<string, Selection>();
  const resolve = (name: string): Selection => {
    let sel = cache.get(name);
    if (!sel) {
      sel = resolveVariable(name, {
        filters: opts.filters,
        parameters: opts.parameters ?? {},
        aggregationOptions: opts.aggregationOptions ?? null,
        time,
      });
      cache.set(name, sel);
    }
    return sel;
  };
  const isKnown = (name: string) => defined.has(name) || (BUILT_IN_VARIABLES as readonly string[]).includes(name);
  const use = (name: string) => {
    if (!variables.includes(name)) variables.push(name);
    if (!isKnown(name) && !unknownVariables.includes(name)) unknownVariables.push(name);
  };

  const walker = new Walker({
    dialect: opts.dialect,
    snippets: opts.snippets ?? [],
    context: opts.context ?? null,
    handler: {
      token(token: FilterToken, expr: Part[] | null, written: string): Part[] | null {
        if (token.kind === 'value') {
          const sel = valueSelection(token.variable, token.selector, isKnown, resolve, written);
          if (!sel) return null;
          use(token.variable);
          return value(sel, token.selector, target, written);
        }
        use(token.variable);
        const sel = resolve(token.variable);
        return token.kind === 'condition' ? condition(expr!, sel, token.selector, target, written) : transformationFor(token, expr!, sel, target, written);
      },
    },
  });
  const parts = walker.walk(opts.sql);
  const { text, values } = render(parts, opts.dialect);
  return { text, values, variables, unknownVariables, snippets: walker.snippetsUsed, timeZone: zone, sessionTimeZone: dataZone };
}

const VALUE_SELECTORS = ['start', 'end', 'value'];

/**
 * The selection behind a value token, or null when the token is not ours: `{name}` alone is a value only
 * for aggregations; an unknown selector on an unknown name is left alone.
 */
function valueSelection(
  name: string,
  selector: string | null,
  isKnown: (n: string) => boolean,
  resolve: (n: string) => Selection,
  written: string,
): Selection | null {
  if (selector === null) {
    if (!isKnown(name)) return null;
    const sel = resolve(name);
    if (sel.kind === 'aggregation') return sel;
    throw sqlError(`"${written}": write {${name}.value}, {${name}.start} or {${name}.end} for a value, or {[expr]=${name}} for a condition.`);
  }
  if (!VALUE_SELECTORS.includes(selector)) {
    if (!isKnown(name)) return null;
    throw sqlError(`"${written}": unknown selector ".${selector}"; use .start, .end or .value.`);
  }
  return resolve(name);
}

function transformationFor(token: ExprToken, expr: Part[], sel: Selection, target: Parameters<typeof transformation>[2], written: string): Part[] {
  if (token.selector !== null) throw sqlError(`"${written}": a transformation takes no selector.`);
  return transformation(expr, sel, target, written);
}

/** Parts → text with placeholders ($1… for Postgres, ? for MySQL) and the values in placeholder order. */
export function render(parts: readonly Part[], dialect: Dialect): { text: string; values: unknown[] } {
  let text = '';
  const values: unknown[] = [];
  const shared = new Map<string, number>();
  for (const p of parts) {
    if (typeof p === 'string') {
      text += p;
      continue;
    }
    if (dialect === 'mysql') {
      values.push(p.value);
      text += '?';
      continue;
    }
    let n = p.shared ? shared.get(p.shared) : undefined;
    if (n === undefined) {
      values.push(p.value);
      n = values.length;
      if (p.shared) shared.set(p.shared, n);
    }
    text += `$${n}`;
  }
  return { text, values };
}
