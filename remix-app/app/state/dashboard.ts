/**
 * The open dashboard's live state in jotai: one atom per report tile (so a tile re-renders only when
 * its own data changes — twenty tiles load independently), the options of query-driven dropdowns and
 * the poll's own state. Atoms are keyed by dashboard so two dashboards never share state.
 */
import { atom, type PrimitiveAtom } from 'jotai';
import { INITIAL_TILE, type TileState } from '../lib/dashboard-status';
import type { FilterOption } from '../lib/filters';

function family<T>(make: () => PrimitiveAtom<T>) {
  const atoms = new Map<string, PrimitiveAtom<T>>();
  return (key: string) => {
    let a = atoms.get(key);
    if (!a) atoms.set(key, (a = make()));
    return a;
  };
}

/** `${dashboardId}:${reportId}` → the tile's state. */
export const tileAtom = family<TileState>(() => atom<TileState>(INITIAL_TILE));

/** dashboard id → options of its query-driven dropdowns by variable. */
export const filterOptionsAtom = family<Record<string, FilterOption[]>>(() => atom<Record<string, FilterOption[]>>({}));

export interface PollState {
  /** When the last answer came. */
  updatedAt: number | null;
  /** Something is still running (the next poll comes sooner). */
  running: boolean;
  /** The status call itself failed. */
  error: string | null;
  refreshing: boolean;
}
export const pollAtom = family<PollState>(() => atom<PollState>({ updatedAt: null, running: true, error: null, refreshing: false }));
