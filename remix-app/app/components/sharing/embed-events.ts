/**
 * Messages between a sharing-link page and the page that embeds it in an iframe (docs:
 * embedding/actions-events). Every message the frame sends has the same versioned envelope:
 *   { source: 'cairn', version: 1, type: 'cairn:…', dashboard_id, … }
 * and never carries the link's token, a password grant or a signature: only what the viewer already
 * sees (filter values, report ids, error messages shown on the tiles).
 */
import type { TileState } from '../../lib/dashboard-status';
import { FILTER_PREFIX, readUrlState, TZ_PARAM, type FilterDef } from '../../lib/filters';

const EMBED_SOURCE = 'cairn';
const EMBED_VERSION = 1;

export type EmbedEvent =
  | { type: 'cairn:loaded'; reports: { total: number; ready: number; empty: number; error: number; waiting: number } }
  | { type: 'cairn:filters-changed'; filters: Record<string, string>; tz: string | null }
  | { type: 'cairn:report-error'; report_id: string; message: string }
  | { type: 'cairn:set-filters-refused'; problems: string[] }
  | { type: 'cairn:resize'; height: number };

export type EmbedMessage = EmbedEvent & { source: typeof EMBED_SOURCE; version: typeof EMBED_VERSION; dashboard_id: string };

export function embedMessage(dashboardId: string, event: EmbedEvent): EmbedMessage {
  return { source: EMBED_SOURCE, version: EMBED_VERSION, dashboard_id: dashboardId, ...event };
}

/** Whether the page runs inside a frame (a cross-origin parent still compares unequal). */
export function isEmbedded(win: { parent: unknown; self?: unknown } | null | undefined): boolean {
  return Boolean(win && win.parent && win.parent !== win);
}

/**
 * Posts to the embedding page. targetOrigin is '*' because the embedding site is not known (any site
 * may frame a sharing link); this is acceptable only because no message holds anything secret.
 */
export function postToParent(win: Window, dashboardId: string, event: EmbedEvent): void {
  if (!isEmbedded(win)) return;
  try {
    win.parent.postMessage(embedMessage(dashboardId, event), '*');
  } catch {
    // A parent that went away: nothing to tell.
  }
}

const SETTLED = new Set(['ready', 'empty', 'error', 'waiting']);

/** The tile counts once every tile has settled (nothing loading or running), else null. */
export function settledSummary(tiles: readonly Pick<TileState, 'phase' | 'running'>[]): Extract<EmbedEvent, { type: 'cairn:loaded' }>['reports'] | null {
  if (tiles.some((t) => !SETTLED.has(t.phase) || (t.running && t.phase !== 'waiting'))) return null;
  const count = (p: string) => tiles.filter((t) => t.phase === p).length;
  return { total: tiles.length, ready: count('ready'), empty: count('empty'), error: count('error'), waiting: count('waiting') };
}

/** Phases that show a report's data (or that it has none): the report has recovered from an error. */
const RECOVERED = new Set(['ready', 'empty']);

/**
 * Report errors not told yet: report id → message, for tiles in error whose message is news. A tile
 * that runs again (a poll, a refresh, new filter values) passes through loading on its way back to the
 * same error: that is not news. Only a report that showed data again has its error forgotten.
 */
export function newReportErrors(
  tiles: readonly { reportId: string; phase: string; message: string | null }[],
  told: Map<string, string>,
): { report_id: string; message: string }[] {
  const out: { report_id: string; message: string }[] = [];
  for (const t of tiles) {
    if (t.phase !== 'error') {
      if (RECOVERED.has(t.phase)) told.delete(t.reportId);
      continue;
    }
    const message = t.message || 'The query failed.';
    if (told.get(t.reportId) === message) continue;
    told.set(t.reportId, message);
    out.push({ report_id: t.reportId, message });
  }
  return out;
}

/** The filter values as the parent sees them: set values only, by variable. */
export function publicFilters(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
}

export type SetFilters = { ok: true; values: Record<string, string>; tz: string | null | undefined } | { ok: false; problems: string[] };

/** Whether a message is a `cairn:set-filters` message (every other message is ignored). */
export function isSetFilters(data: unknown): boolean {
  return Boolean(data && typeof data === 'object' && (data as { type?: unknown }).type === 'cairn:set-filters');
}

/**
 * A `{ type: 'cairn:set-filters', filters: { variable: 'value as in the URL' }, tz? }` message from
 * the parent, checked exactly like `f.<variable>` and `tz` address values; a variable the signed
 * address fixed (`fixed`) is refused, whatever its value. Null when the message is not a set-filters
 * message at all (other messages are ignored).
 */
export function readSetFilters(data: unknown, defs: FilterDef[], zones: string[] | null, fixed: ReadonlySet<string> = new Set()): SetFilters | null {
  if (!isSetFilters(data)) return null;
  const { filters, tz } = data as { filters?: unknown; tz?: unknown };
  if (filters !== undefined && (!filters || typeof filters !== 'object' || Array.isArray(filters)))
    return { ok: false, problems: ['filters must be an object of variable → value.'] };
  const search = new URLSearchParams();
  const problems: string[] = [];
  for (const [variable, value] of Object.entries((filters ?? {}) as Record<string, unknown>)) {
    if (fixed.has(variable)) problems.push(`"${variable}" is fixed by the signed address and cannot be changed.`);
    else if (typeof value === 'string' || typeof value === 'number') search.set(`${FILTER_PREFIX}${variable}`, String(value));
    else problems.push(`The value of "${variable}" must be text as in a URL.`);
  }
  if (tz !== undefined && tz !== null && typeof tz !== 'string') problems.push('tz must be a time zone name.');
  if (typeof tz === 'string') search.set(TZ_PARAM, tz);
  const read = readUrlState(search, defs, zones);
  problems.push(...read.problems);
  if (problems.length) return { ok: false, problems };
  return { ok: true, values: read.values, tz: typeof tz === 'string' ? read.tz : tz === null ? null : undefined };
}

/** Problems of a `cairn:set-filters` message that a link does not take at all. */
export const SET_FILTERS_OFF =
  'This link does not let the embedding page change filters (it needs parameters_enabled, toolbar_enabled and filter_bar_enabled).';

/** The height the parent needs to show the page without a scroll bar: the content's bottom edge, in whole pixels. */
export function contentHeight(content: { getBoundingClientRect(): { bottom: number } }, scrollY: number, marginBottom: number): number {
  return Math.max(0, Math.ceil(content.getBoundingClientRect().bottom + scrollY + marginBottom));
}
