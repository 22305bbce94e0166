/**
 * Messages between a sharing-link page and the page that embeds it in an iframe (docs:
 * embedding/actions-events). Every message the frame sends has the same versioned envelope:
 *   { source: 'cairn', version: 1, type: 'cairn:…', dashboard_id, … }
 * and never carries the link's token, a password grant or a signature: only what the viewer already
 * sees (filter values, report ids, error messages shown on the tiles).
 */
import type { TileState } from '../../lib/dashboard-status';
import { FILTER_PREFIX, readUrlState, TZ_PARAM, type FilterDef } from '../../lib/filters';

export const EMBED_SOURCE = 'cairn';
export const EMBED_VERSION = 1;

export type EmbedEvent =
  | { type: 'cairn:loaded'; reports: { total: number; ready: number; empty: number; error: number; waiting: number } }
  | { type: 'cairn:filters-changed'; filters: Record<string, string>; tz: string | null }
  | { type: 'cairn:report-error'; report_id: string; message: string }
  | { type: 'cairn:set-filters-refused'; problems: string[] };

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

/** Report errors not told yet: report id → message, for tiles in error whose message changed. */
export function newReportErrors(tiles: readonly { reportId: string; phase: string; message: string | null }[], told: Map<string, string>): { report_id: string; message: string }[] {
  const out: { report_id: string; message: string }[] = [];
  for (const t of tiles) {
    if (t.phase !== 'error') {
      told.delete(t.reportId);
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

/**
 * A `{ type: 'cairn:set-filters', filters: { variable: 'value as in the URL' }, tz? }` message from
 * the parent, checked exactly like `f.<variable>` and `tz` address values. Null when the message is
 * not a set-filters message at all (other messages are ignored).
 */
export function readSetFilters(data: unknown, defs: FilterDef[], zones: string[] | null): SetFilters | null {
  if (!data || typeof data !== 'object' || (data as { type?: unknown }).type !== 'cairn:set-filters') return null;
  const { filters, tz } = data as { filters?: unknown; tz?: unknown };
  if (filters !== undefined && (!filters || typeof filters !== 'object' || Array.isArray(filters))) return { ok: false, problems: ['filters must be an object of variable → value.'] };
  const search = new URLSearchParams();
  const problems: string[] = [];
  for (const [variable, value] of Object.entries((filters ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string' || typeof value === 'number') search.set(`${FILTER_PREFIX}${variable}`, String(value));
    else problems.push(`The value of "${variable}" must be text as in a URL.`);
  }
  if (tz !== undefined && tz !== null && typeof tz !== 'string') problems.push('tz must be a time zone name.');
  if (typeof tz === 'string') search.set(TZ_PARAM, tz);
  const read = readUrlState(search, defs, zones);
  problems.push(...read.problems);
  if (problems.length) return { ok: false, problems };
  return { ok: true, values: read.values, tz: typeof tz === 'string' ? read.tz : tz === null ? null : undefined };
}
