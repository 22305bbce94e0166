/**
 * The maximized tile lives in the address, so a link can open a dashboard with one tile enlarged and
 * Back closes it: `?tile=<report id>` on the analyst app's dashboard, `#tile=<report id>` on a sharing
 * link (whose query is what was shared, possibly signed, and must not change). Maximizing pushes an
 * entry; restoring goes back when that entry was pushed here, else replaces the address.
 */
import { useCallback, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router';

export const TILE_PARAM = 'tile';

export function useMaximizedTile(where: 'search' | 'hash'): { maximizedId: string | null; onMaximize: (reportId: string, on: boolean) => void } {
  const location = useLocation();
  const navigate = useNavigate();
  const read = (l: { search: string; hash: string }) => new URLSearchParams((where === 'search' ? l.search : l.hash).replace(/^[?#]/, ''));
  const maximizedId = read(location).get(TILE_PARAM);
  const latest = useRef(location);
  latest.current = location;
  const pushedFor = useRef<string | null>(null);
  const onMaximize = useCallback(
    (reportId: string, on: boolean) => {
      const l = latest.current;
      const params = read(l);
      if (!on && params.get(TILE_PARAM) === reportId && pushedFor.current === reportId) {
        pushedFor.current = null;
        navigate(-1);
        return;
      }
      if (on) params.set(TILE_PARAM, reportId);
      else params.delete(TILE_PARAM);
      pushedFor.current = on ? reportId : null;
      const qs = params.toString();
      const to =
        where === 'search'
          ? { pathname: l.pathname, search: qs ? `?${qs}` : '', hash: l.hash }
          : { pathname: l.pathname, search: l.search, hash: qs ? `#${qs}` : '' };
      navigate(to, { preventScrollReset: true, replace: !on });
    },
    [navigate, where],
  ); // eslint-disable-line react-hooks/exhaustive-deps
  return { maximizedId, onMaximize };
}
