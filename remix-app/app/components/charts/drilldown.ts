/**
 * Drill-downs: a report's chart_configuration may name a target dashboard and which result columns
 * set which of its filters. Clicking a bar, a slice or a table row then opens the target with those
 * filter values in its address (`f.<variable>=<value>`, as the dashboard reads them, lib/filters.ts),
 * plus — unless switched off — the filter values and time zone the viewer has now, for filters the
 * mapping does not set. Only the analyst app follows drill-downs: sharing links and the print view
 * draw the same charts without them.
 */
import type { Cell, DataField } from '../../lib/types';
import { keyOf } from './data';

interface DrilldownMapping {
  /** A result column (by name). */
  column: string;
  /** A filter variable of the target dashboard. */
  variable: string;
}

export interface Drilldown {
  dashboard_id: string;
  mapping: DrilldownMapping[];
  /** Carry the viewer's current filter values (same variable names) and time zone over; default true. */
  keep_filters: boolean;
  /** Open the target in a new tab; default false. */
  new_tab: boolean;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const VARIABLE = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;

/** The drill-down of a chart configuration, or null when there is none (or it is unusable). */
export function parseDrilldown(raw: unknown): Drilldown | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  if (typeof r.dashboard_id !== 'string' || !ID.test(r.dashboard_id)) return null;
  const mapping = (Array.isArray(r.mapping) ? r.mapping : [])
    .filter(
      (m): m is DrilldownMapping =>
        !!m &&
        typeof m === 'object' &&
        typeof (m as DrilldownMapping).column === 'string' &&
        typeof (m as DrilldownMapping).variable === 'string' &&
        (m as DrilldownMapping).column !== '' &&
        VARIABLE.test((m as DrilldownMapping).variable),
    )
    .map((m) => ({ column: m.column, variable: m.variable }));
  return { dashboard_id: r.dashboard_id, mapping, keep_filters: r.keep_filters !== false, new_tab: r.new_tab === true };
}

/** A cell as a filter value in the address: dates and times as written, NULL as unset (''). */
function urlValue(v: Cell | undefined): string {
  if (v === null || v === undefined) return '';
  return String(v);
}

/** Keeps `,` and `:` readable, as the dashboard writes its own addresses. */
const encode = (v: string) => encodeURIComponent(v).replace(/%2C/gi, ',').replace(/%3A/gi, ':');

/**
 * The target's address for a clicked row. `currentSearch` is the viewer's address query: its `f.*`
 * values and `tz` are kept (keep_filters) unless the mapping sets the same variable.
 */
export function drilldownHref(dd: Drilldown, fields: readonly DataField[], row: readonly Cell[], currentSearch: string): string {
  const values = new Map<string, string>();
  for (const m of dd.mapping) {
    const field = fields.find((f) => f.name === m.column);
    if (field) values.set(m.variable, urlValue(row[field.idx]));
  }
  const parts: string[] = [];
  if (dd.keep_filters) {
    for (const [k, v] of new URLSearchParams(currentSearch)) {
      if (k === 'tz') parts.push(`tz=${encode(v)}`);
      else if (k.startsWith('f.') && !values.has(k.slice(2))) parts.push(`${encode(k)}=${encode(v)}`);
    }
  }
  for (const [variable, v] of values) parts.push(`f.${encode(variable)}=${encode(v)}`);
  return `/app/dashboards/${encodeURIComponent(dd.dashboard_id)}${parts.length ? `?${parts.join('&')}` : ''}`;
}

/**
 * The first row behind a chart element: the row whose `x` column holds `xValue` (and, with a series
 * column, whose series is `series`, named as toSeries names them). null when none matches.
 */
export function rowFor(rows: readonly Cell[][], x: number, xValue: Cell | undefined, seriesCol?: number, series?: string): Cell[] | null {
  const key = keyOf(xValue);
  const seriesName = (v: Cell | undefined) => (v === null || v === undefined ? '(none)' : String(v));
  return rows.find((r) => keyOf(r[x]) === key && (seriesCol === undefined || series === undefined || seriesName(r[seriesCol]) === series)) ?? null;
}
