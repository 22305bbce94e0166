/**
 * A dashboard's colour map in the browser: seeded with its stored series_colors, so a value has one
 * colour on every tile and every visit. With `save`, values no tile had shown before are handed to the
 * API in batches (app route /app/dashboards/{id}/series-colors), which gives them the same next
 * ordinals this map took; the print view and sharing links only read the stored map.
 */
import { useEffect, useMemo } from 'react';
import { ColorMap } from './palette';

const BATCH_MS = 400;

export function useDashboardColors(
  dashboardId: string,
  stored: Readonly<Record<string, number>> | null | undefined,
  paletteSize: number,
  save: boolean,
): ColorMap {
  const map = useMemo(() => new ColorMap(paletteSize).seed(stored ?? {}), [dashboardId, paletteSize]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    if (!save) return;
    let queue: string[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      const values = queue.slice(0, 500);
      queue = queue.slice(500);
      if (queue.length) timer = setTimeout(flush, BATCH_MS);
      if (!values.length) return;
      void fetch(`/app/dashboards/${encodeURIComponent(dashboardId)}/series-colors`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ values }),
      }).catch(() => {});
    };
    map.onNew = (name) => {
      if (name.length > 200) return;
      queue.push(name);
      timer ??= setTimeout(flush, BATCH_MS);
    };
    return () => {
      map.onNew = null;
      if (timer) clearTimeout(timer);
      flush();
    };
  }, [map, dashboardId, save]);
  return map;
}
