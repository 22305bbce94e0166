import type { ResultData } from '../../../lib/dashboard-status';
import type { Cell } from '../../../lib/types';
import type { Theme } from '../../../state/theme';
import type { ChartConfig } from '../config';
import type { Roles } from '../resolve';

/** What every chart view receives. */
export interface ViewProps<C extends ChartConfig = ChartConfig> {
  config: C;
  roles: Roles;
  data: ResultData;
  palette: string[];
  /** Colours of series values (names), pinned by value across filters and charts (palette.ts ColorMap). */
  colors: (names: readonly string[]) => Map<string, string>;
  mode: Theme;
  title: string;
  /** The time zone instants are shown in (the result's, else the dashboard's). */
  zone: string;
  /** Set when a click on an element should drill down: called with the result row behind it. */
  onDrill?: (row: Cell[]) => void;
}

export const idx = (roles: Roles, name: string): number | undefined => {
  const v = roles[name];
  return typeof v === 'number' ? v : undefined;
};
export const idxList = (roles: Roles, name: string): number[] => {
  const v = roles[name];
  return Array.isArray(v) ? v : typeof v === 'number' ? [v] : [];
};
