/**
 * The SQL the compiler writes for conditions, transformations and values, per dialect. Output is a list
 * of parts: fixed SQL text written here, and values that become placeholders. User expressions arrive
 * as parts too and are only ever copied, never inspected.
 */
import { ApiError } from '../errors.ts';
import type { Dialect } from './lexer.ts';
import type { Aggregation } from './params.ts';
import { neighbour, type Range } from './ranges.ts';
import type { Selection } from './selection.ts';
import { TRANSITION_WINDOW, formatDay, formatTimeOfDay, transitions, zoneOffset } from '../time.ts';
import { render, renderInstant, type TimeContext } from './values.ts';

/** A piece of compiled SQL: fixed text, or a value to bind (`shared` values get one placeholder on Postgres). */
export type Part = string | { value: unknown; shared?: string };

export interface SqlTarget {
  dialect: Dialect;
  time: TimeContext;
}

export function sqlError(detail: string): ApiError {
  return new ApiError('invalid_attribute', detail, { source: { pointer: '/sql_query' } });
}

const SIMPLE = /^[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*$/;

/** The expression, parenthesised unless it is a plain (qualified) column name. */
function operand(expr: Part[]): Part[] {
  return expr.length === 1 && typeof expr[0] === 'string' && SIMPLE.test(expr[0]) ? expr : ['(', ...expr, ')'];
}

export function condition(expr: Part[], sel: Selection, selector: string | null, target: SqlTarget, written: string): Part[] {
  if (selector !== null && selector !== 'previous' && selector !== 'next') {
    throw sqlError(`"${written}": unknown condition selector ".${selector}"; use .previous or .next.`);
  }
  if (sel.kind === 'aggregation') {
    throw sqlError(`"${written}": "${sel.name}" is an aggregation; use it as a transformation, {[expr]:${sel.name}}.`);
  }
  if (sel.kind === 'list') {
    if (selector) throw sqlError(`"${written}": .${selector} needs a range filter; "${sel.name}" is not one.`);
    return listCondition(operand(expr), sel, target);
  }
  let range = sel.range;
  if (range && selector) range = neighbour(range, selector, target.time.zone);
  return rangeCondition(operand(expr), range, target);
}

function listCondition(e: Part[], sel: Extract<Selection, { kind: 'list' }>, target: SqlTarget): Part[] {
  if (!sel.values.length) return ['TRUE'];
  const present = sel.values.filter((v) => v.t !== 'null').map((v) => ({ value: render(v, target.dialect, target.time) }));
  const terms: Part[][] = [];
  if (present.length === 1) terms.push([...e, ' = ', present[0]!]);
  else if (present.length > 1) terms.push([...e, ' IN (', ...present.flatMap((p, i) => (i ? [', ', p] : [p])), ')']);
  if (present.length < sel.values.length) terms.push([...e, ' IS NULL']);
  return ['(', ...terms.flatMap((t, i) => (i ? [' OR ', ...t] : t)), ')'];
}

function boundValue(range: Range, v: number, target: SqlTarget): unknown {
  if (range.type === 'instant') return renderInstant(v, target.dialect, target.time.dataZone);
  if (range.type === 'date') return formatDay(v);
  return formatTimeOfDay(v);
}

function rangeCondition(e: Part[], range: Range | null, target: SqlTarget): Part[] {
  if (!range) return ['TRUE'];
  if (range.empty) return ['FALSE'];
  const terms: Part[][] = [];
  if (range.start !== null) terms.push([...e, ' >= ', { value: boundValue(range, range.start, target) }]);
  if (range.end !== null) terms.push([...e, ' < ', { value: boundValue(range, range.end, target) }]);
  if (!terms.length) return ['TRUE'];
  return ['(', ...terms.flatMap((t, i) => (i ? [' AND ', ...t] : t)), ')'];
}

export function value(sel: Selection, selector: string | null, target: SqlTarget, written: string): Part[] {
  if (sel.kind === 'aggregation') {
    if (selector !== null && selector !== 'value') throw sqlError(`"${written}": an aggregation has only the selector .value.`);
    return [{ value: sel.value }];
  }
  if (sel.kind === 'range') {
    if (selector !== 'start' && selector !== 'end') {
      throw sqlError(`"${written}": "${sel.name}" is a range; use {${sel.name}.start} or {${sel.name}.end}.`);
    }
    const v = sel.range?.[selector];
    if (v === null || v === undefined) return ['NULL'];
    if (sel.type === 'date') return [{ value: formatDay(v) }];
    if (sel.type === 'time') return [{ value: formatTimeOfDay(v) }];
    return [{ value: renderInstant(v, target.dialect, target.time.dataZone) }];
  }
  if (selector !== 'value') {
    throw sqlError(`"${written}": "${sel.name}" holds values, not a range; use {${sel.name}.value} or a condition {[expr]=${sel.name}}.`);
  }
  if (sel.values.length > 1) {
    throw new ApiError('invalid_attribute', `Filter "${sel.name}": {${sel.name}.value} needs one value; ${sel.values.length} were given.`, {
      source: { pointer: sel.origin.pointer },
    });
  }
  const only = sel.values[0];
  if (!only) return sel.checkbox ? [{ value: false }] : ['NULL'];
  return [{ value: render(only, target.dialect, target.time) }];
}

export function transformation(expr: Part[], sel: Selection, target: SqlTarget, written: string): Part[] {
  if (sel.kind !== 'aggregation') {
    throw sqlError(
      `"${written}": a transformation needs an aggregation (the built-in "aggregation" or a date_time_aggregation filter); "${sel.name}" is not one.`,
    );
  }
  return target.dialect === 'postgres' ? postgresBucket(expr, sel.value, target.time) : mysqlBucket(expr, sel.value, target.time);
}

/**
 * Postgres: when the dashboard zone differs from the data zone, the value is read as a timestamptz
 * (a zone-less timestamp in the session zone, which the caller sets to the data zone) and its wall clock
 * in the dashboard zone is truncated. The zone is one shared parameter, so repeated uses of the same
 * transformation (SELECT and GROUP BY) are the identical expression.
 */
function postgresBucket(expr: Part[], agg: Aggregation, time: TimeContext): Part[] {
  if (agg === 'all_time') return ['CAST(NULL AS timestamp)'];
  const local: Part[] =
    time.zone === time.dataZone ? ['(', ...expr, ')'] : ['((', ...expr, ')::timestamptz AT TIME ZONE ', { value: time.zone, shared: 'time_zone' }, ')'];
  if (agg === 'week_sunday') return ["(date_trunc('week', ", ...local, " + interval '1 day') - interval '1 day')"];
  return [`date_trunc('${agg}', `, ...local, ')'];
}

const MYSQL_FORMATS: Partial<Record<Aggregation, string>> = {
  second: '%Y-%m-%d %H:%i:%s',
  minute: '%Y-%m-%d %H:%i:00',
  hour: '%Y-%m-%d %H:00:00',
  month: '%Y-%m-01 00:00:00',
  year: '%Y-01-01 00:00:00',
};

/** MySQL / MariaDB: buckets as DATETIME, from the wall clock in the dashboard zone. */
function mysqlBucket(expr: Part[], agg: Aggregation, time: TimeContext): Part[] {
  if (agg === 'all_time') return ['CAST(NULL AS DATETIME)'];
  const l = mysqlWallClock(expr, time);
  const fmt = MYSQL_FORMATS[agg];
  if (fmt) return ['CAST(DATE_FORMAT(', ...l, `, '${fmt}') AS DATETIME)`];
  if (agg === 'day') return ['CAST(DATE(', ...l, ') AS DATETIME)'];
  if (agg === 'week') return ['CAST(DATE(', ...l, ') - INTERVAL WEEKDAY(', ...l, ') DAY AS DATETIME)'];
  if (agg === 'week_sunday') return ['CAST(DATE(', ...l, ') - INTERVAL (DAYOFWEEK(', ...l, ') - 1) DAY AS DATETIME)'];
  return ['CAST(MAKEDATE(YEAR(', ...l, '), 1) + INTERVAL (QUARTER(', ...l, ') - 1) QUARTER AS DATETIME)'];
}

/** TO_SECONDS() of 1970-01-01 00:00:00: MySQL counts seconds from year 0. */
const TO_SECONDS_EPOCH = 62_167_219_200;

/**
 * The value's wall clock in the dashboard zone, moved from the data zone by offsets computed here.
 *
 * Why not CONVERT_TZ: with zone names it needs the server's time zone tables, which many servers (this
 * machine's MariaDB among them) do not load, and then returns NULL. Instead the offsets of both zones
 * are written into the SQL as lookups, INTERVAL(seconds, boundary…) picking the index and ELT(…) the
 * offset. Limitation: the offset changes are those of TRANSITION_WINDOW (1970 to 2100); outside it the
 * first / last offset applies. The value is read as a zone-less DATETIME in the data zone (a TIMESTAMP
 * column is shown in the session zone, which the caller sets to the data zone).
 */
function mysqlWallClock(expr: Part[], time: TimeContext): Part[] {
  if (time.zone === time.dataZone) return ['(', ...expr, ')'];
  const seconds: Part[] = ['TO_SECONDS(', ...expr, ')'];
  const fromData = offsetLookup(time.dataZone, seconds, 'wall');
  const utc: Part[] = fromData.length === 1 && fromData[0] === '0' ? seconds : ['(', ...seconds, ' - ', ...fromData, ')'];
  const toTarget = offsetLookup(time.zone, utc, 'utc');
  const shift: Part[] =
    isConstant(fromData) && isConstant(toTarget) ? [String(Number(toTarget[0]) - Number(fromData[0]))] : ['(', ...toTarget, ' - ', ...fromData, ')'];
  return ['((', ...expr, ') + INTERVAL ', ...shift, ' SECOND)'];
}

function isConstant(parts: Part[]): parts is [string] {
  return parts.length === 1 && typeof parts[0] === 'string' && /^-?\d+$/.test(parts[0]);
}

/**
 * The zone's UTC offset in seconds for a TO_SECONDS() value that is either a UTC wall clock ('utc') or
 * the zone's own wall clock ('wall'). For a wall clock each change takes effect at the local reading
 * `at + after`: skipped local times keep the offset before a spring-forward change, repeated ones get
 * the offset after a fall-back change — the later instant in both cases, as Postgres reads them.
 */
function offsetLookup(zone: string, seconds: Part[], reading: 'utc' | 'wall'): Part[] {
  const changes = transitions(zone);
  if (!changes.length) return [String(Math.round(zoneOffset(zone, TRANSITION_WINDOW.from) / 1000))];
  const bounds = changes.map((c) => Math.round((c.at + (reading === 'wall' ? c.after : 0)) / 1000) + TO_SECONDS_EPOCH);
  const offsets = [changes[0]!.before, ...changes.map((c) => c.after)].map((o) => Math.round(o / 1000));
  return ['CAST(ELT(INTERVAL(', ...seconds, `, ${bounds.join(', ')}) + 1, ${offsets.join(', ')}) AS SIGNED)`];
}
