/** Formatting of values in charts and tables: numbers after the chart's number format, dates by their grain. */
import { formatWall, toWall } from '@cairn/core/time';
import type { Cell, DataField } from '../../lib/types';
import type { NumberFormat } from './config';

// Formatters are kept: making one costs far more than formatting with it (a table or an axis formats
// hundreds of values, and every tile's data age is formatted on each of its renders).
const plain = new Map<number, Intl.NumberFormat>();
const compact = new Map<number, Intl.NumberFormat>();
const fixed = new Map<number, Intl.NumberFormat>();
function nf(cache: Map<number, Intl.NumberFormat>, decimals: number, opts: Intl.NumberFormatOptions) {
  let f = cache.get(decimals);
  if (!f)
    cache.set(
      decimals,
      (f = new Intl.NumberFormat('en', {
        ...opts,
        maximumFractionDigits: decimals,
        minimumFractionDigits: opts.minimumFractionDigits ?? (opts.notation ? 0 : undefined),
      })),
    );
  return f;
}

/** Formats a number: decimals (at most 2 by default), short forms from 1,000 on when compact, percent, prefix and suffix. */
export function formatNumber(n: number, format: NumberFormat = {}): string {
  let v = n;
  let suffix = format.suffix ?? '';
  if (format.percent) {
    v = n * 100;
    suffix = `%${suffix}`;
  }
  const decimals = format.decimals ?? 2;
  const body =
    format.compact && Math.abs(v) >= 1000
      ? nf(compact, Math.min(decimals, 1), { notation: 'compact' }).format(v)
      : format.decimals !== undefined
        ? nf(fixed, decimals, { minimumFractionDigits: decimals }).format(v)
        : nf(plain, decimals, {}).format(v);
  return `${format.prefix ?? ''}${body}${suffix}`;
}

/** Short axis labels: 12.3K, 4.5M. */
export function formatCompact(n: number, format: NumberFormat = {}): string {
  return formatNumber(n, { ...format, compact: true, decimals: Math.abs(n) >= 1000 ? 1 : format.decimals });
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

export function isDateType(field: DataField | undefined): boolean {
  return Boolean(field && /^(date|datetime|timestamp)$/i.test(field.data_type));
}

const parseDate = (v: string) => new Date(DATE_ONLY.test(v) ? `${v}T00:00:00Z` : v.includes('Z') || /[+-]\d\d:?\d\d$/.test(v) ? v : `${v.replace(' ', 'T')}Z`);

const zoneCache = new Map<string, boolean>();
/** A zone the browser knows (an unknown one falls back to UTC rather than throwing while drawing). */
export function knownZone(zone: string | null | undefined): string {
  if (!zone) return 'UTC';
  let ok = zoneCache.get(zone);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      ok = true;
    } catch {
      ok = false;
    }
    zoneCache.set(zone, ok);
  }
  return ok ? zone : 'UTC';
}

const atUtcMidnight = (v: Cell) => typeof v !== 'string' || DATE_ONLY.test(v) || /^\d{4}-\d{2}-\d{2}[T ]00:00(:00(\.0+)?)?(Z|[+-]00(:?00)?)?$/.test(v);

/**
 * The zone a date-time column is shown in. Instants (timestamptz values, which the engine hands out in
 * UTC) are shown in the dashboard's zone. A column whose every value sits on UTC midnight holds calendar
 * buckets (date_trunc by day, week, month in the dashboard zone, written as wall-clock values): it is
 * shown as written, in UTC, so "Mar 1" does not turn into "Feb 28, 19:00".
 */
export function displayZone(values: Iterable<Cell>, zone: string | null | undefined): string {
  const z = knownZone(zone);
  if (z === 'UTC') return z;
  for (const v of values) if (!atUtcMidnight(v)) return z;
  return 'UTC';
}

/** The same for one column of rows (scans the column once). */
export function columnZone(rows: Cell[][], idx: number, field: DataField | undefined, zone: string | null | undefined): string {
  if (!field || !/^(datetime|timestamp)$/i.test(field.data_type)) return 'UTC';
  function* column() {
    for (const r of rows) yield r[idx] ?? null;
  }
  return displayZone(column(), zone);
}

/** `YYYY-MM-DD HH:MM[:SS]` of an instant in a zone (zone arithmetic: core/src/time.ts). */
export function wallClock(d: Date, zone: string, seconds: boolean): string {
  return formatWall(toWall(zone, d.getTime())).slice(0, seconds ? 19 : 16);
}

const instantFormats = new Map<string, Intl.DateTimeFormat>();

/** An instant for a "data from …" line: `Nov 22, 2026, 14:05 (Europe/Berlin)`. */
export function formatInstant(iso: string | null | undefined, zone: string | null | undefined): string | null {
  if (!iso) return null;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  const z = knownZone(zone);
  let fmt = instantFormats.get(z);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en', { timeZone: z, month: 'short', day: 'numeric', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    instantFormats.set(z, fmt);
  }
  return `${fmt.format(d)} (${z})`;
}

/**
 * A date label that matches the grain of the series: month starts read "Jan 2026", whole days "Mar 3, 2026", else with the time.
 * Instants are shown in `zone` (see displayZone); calendar buckets as written.
 */
export function dateLabeler(values: Cell[], zone: string | null | undefined = 'UTC'): (v: Cell) => string {
  const tz = displayZone(values, zone);
  const dates = values
    .map((v) => (typeof v === 'string' && (DATE_ONLY.test(v) || DATE_TIME.test(v)) ? parseDate(v) : null))
    .filter((d): d is Date => d !== null && !Number.isNaN(d.getTime()));
  const midnight = tz === 'UTC' && dates.every((d) => d.getUTCHours() === 0 && d.getUTCMinutes() === 0);
  const monthly = dates.length > 0 && midnight && dates.every((d) => d.getUTCDate() === 1);
  const yearly = monthly && dates.every((d) => d.getUTCMonth() === 0);
  const opts: Intl.DateTimeFormatOptions = yearly
    ? { year: 'numeric', timeZone: tz }
    : monthly
      ? { month: 'short', year: 'numeric', timeZone: tz }
      : midnight
        ? { month: 'short', day: 'numeric', year: 'numeric', timeZone: tz }
        : { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: tz };
  const fmt = new Intl.DateTimeFormat('en', opts);
  return (v) => {
    if (typeof v !== 'string') return formatCell(v);
    const d = parseDate(v);
    return Number.isNaN(d.getTime()) ? v : fmt.format(d);
  };
}

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?(\.\d+)?(Z|[+-]\d{2}(:?\d{2})?)?$/;

/** Identifiers read better without thousands separators. */
function isIdField(field: DataField | undefined): boolean {
  return Boolean(field && (field.name === 'id' || field.name.endsWith('_id') || /^(year|zip|postcode)$/i.test(field.name)));
}

/**
 * A table cell: numbers with separators, date-times to the minute (seconds when set) — in `zone` when
 * one is given (see columnZone), as written otherwise — booleans as ✓/✗, NULL empty.
 */
export function formatCell(v: Cell | undefined | unknown, field?: DataField, format?: NumberFormat, zone?: string): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? '✓' : '✗';
  if (typeof v === 'number') return isIdField(field) ? String(v) : formatNumber(v, format);
  if (typeof v === 'object') return JSON.stringify(v);
  const s = String(v);
  if (field && /^(datetime|timestamp)$/i.test(field.data_type)) {
    const m = TIMESTAMP.exec(s);
    if (m) {
      const seconds = Boolean(m[3] && m[3] !== ':00');
      if (zone && zone !== 'UTC') {
        const d = parseDate(s);
        if (!Number.isNaN(d.getTime())) return wallClock(d, zone, seconds);
      }
      return `${m[1]} ${m[2]}${seconds ? m[3] : ''}`;
    }
  }
  if (field && /^(float|bigint|integer|decimal)$/i.test(field.data_type) && !isIdField(field)) {
    const n = Number(s);
    if (Number.isFinite(n)) return formatNumber(n, format);
  }
  return s;
}

export function isNumericField(field: DataField): boolean {
  return /^(integer|bigint|float|decimal|number)$/i.test(field.data_type);
}

/** "revenue_eur" → "Revenue Eur" unless the result names it (human_name). */
export function columnLabel(field: DataField | undefined): string {
  if (!field) return '';
  return (
    field.human_name ||
    field.name
      .replace(/[_\s]+/g, ' ')
      .trim()
      .replace(/\b\w/g, (c) => c.toUpperCase())
  );
}

export function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** dateLabeler for a date column plotted as milliseconds (an XY chart's x): a tick or a point's x reads as a date. */
export function msDateLabeler(values: Cell[], zone: string | null | undefined = 'UTC'): (ms: number) => string {
  const label = dateLabeler(values, zone);
  return (ms) => (Number.isFinite(ms) ? label(new Date(ms).toISOString()) : '');
}
