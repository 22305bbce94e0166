/**
 * The sharing-link page's side of embedding: when it runs in an iframe it tells the parent page when
 * every tile has settled, when the filters change, when a report fails and how tall its content is;
 * when the link lets its parameters change, it also takes `cairn:set-filters` messages from the parent
 * (and refuses them, with the reason, when it does not or when they name a signed variable). The
 * message shapes are in embed-events.ts.
 */
import { atom, useAtomValue } from 'jotai';
import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { FilterDef } from '../../lib/filters';
import { tileAtom } from '../../state/dashboard';
import {
  contentHeight,
  isEmbedded,
  isSetFilters,
  newReportErrors,
  postToParent,
  publicFilters,
  readSetFilters,
  SET_FILTERS_OFF,
  settledSummary,
} from './embed-events';

interface Options {
  dashboardId: string;
  reportIds: string[];
  /** The filter values in force and the chosen time zone. */
  values: Record<string, string>;
  tz: string | null;
  /** Set when the link lets the parent change filters (parameters and the filter bar enabled). */
  onSetFilters: ((values: Record<string, string>, tz: string | null | undefined) => void) | null;
  defs: FilterDef[];
  zones: string[] | null;
  /** Variables the signed address set: a set-filters message naming one is refused. */
  fixed: ReadonlySet<string>;
  /** The page's content, whose height goes to the parent (`cairn:resize`) whenever it changes. */
  contentRef: RefObject<HTMLElement | null>;
}

export function useEmbedEvents({ dashboardId, reportIds, values, tz, onSetFilters, defs, zones, fixed, contentRef }: Options): void {
  const [embedded, setEmbedded] = useState(false);
  useEffect(() => setEmbedded(isEmbedded(window)), []);
  const idsKey = reportIds.join(',');
  const tilesAtom = useMemo(
    () => atom((get) => reportIds.map((id) => ({ reportId: id, ...get(tileAtom(`${dashboardId}:${id}`)) }))),
    [dashboardId, idsKey], // eslint-disable-line react-hooks/exhaustive-deps
  );
  const tiles = useAtomValue(tilesAtom);

  const settled = useRef(false);
  const told = useRef(new Map<string, string>());
  useEffect(() => {
    if (!embedded) return;
    for (const e of newReportErrors(tiles, told.current)) postToParent(window, dashboardId, { type: 'cairn:report-error', ...e });
    const summary = settledSummary(tiles);
    if (summary && !settled.current) postToParent(window, dashboardId, { type: 'cairn:loaded', reports: summary });
    settled.current = Boolean(summary);
  }, [embedded, tiles, dashboardId]);

  const filtersKey = JSON.stringify([publicFilters(values), tz]);
  const lastFilters = useRef<string | null>(null);
  useEffect(() => {
    if (!embedded) return;
    // The first values are the link's own; only later changes are news.
    if (lastFilters.current !== null && lastFilters.current !== filtersKey) {
      const [filters, zone] = JSON.parse(filtersKey) as [Record<string, string>, string | null];
      postToParent(window, dashboardId, { type: 'cairn:filters-changed', filters, tz: zone });
    }
    lastFilters.current = filtersKey;
  }, [embedded, filtersKey, dashboardId]);

  useEffect(() => {
    if (!embedded) return;
    const listen = (e: MessageEvent) => {
      if (e.source !== window.parent || !isSetFilters(e.data)) return;
      if (!onSetFilters) {
        postToParent(window, dashboardId, { type: 'cairn:set-filters-refused', problems: [SET_FILTERS_OFF] });
        return;
      }
      const read = readSetFilters(e.data, defs, zones, fixed);
      if (!read) return;
      if (read.ok) onSetFilters(read.values, read.tz);
      else postToParent(window, dashboardId, { type: 'cairn:set-filters-refused', problems: read.problems });
    };
    window.addEventListener('message', listen);
    return () => window.removeEventListener('message', listen);
  }, [embedded, onSetFilters, defs, zones, fixed, dashboardId]);

  // The content's height, each time it changes (tiles loading, a filter bar wrapping, a narrower
  // frame), so the parent can size the iframe without a second scroll bar.
  useEffect(() => {
    const content = contentRef.current;
    if (!embedded || !content || typeof ResizeObserver === 'undefined') return;
    let last = -1;
    const tell = () => {
      const height = contentHeight(content, window.scrollY, parseFloat(getComputedStyle(content).marginBottom) || 0);
      if (height === last) return;
      last = height;
      postToParent(window, dashboardId, { type: 'cairn:resize', height });
    };
    const observer = new ResizeObserver(tell);
    observer.observe(content);
    tell();
    return () => observer.disconnect();
  }, [embedded, contentRef, dashboardId]);
}
