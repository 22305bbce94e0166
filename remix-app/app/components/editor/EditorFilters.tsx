/**
 * The dashboard's filter bar inside the report editor (the dashboard's own component), so a query can be
 * tried with real filter values. Values live in the URL as on the dashboard; changing one reloads the
 * parameters without touching the SQL being edited. Query-driven dropdowns load their options from the
 * filter options call (useFilterOptions), with the values in force.
 */
import { useLocation, useNavigate } from 'react-router';
import { FilterBar } from '../filters/FilterBar';
import { FILTER_PREFIX, TZ_PARAM, withFilterValues, type InputParameters } from '../../lib/filters';
import type { EditorFilterState } from '../../lib/editor-filter-state';
import { useFilterOptions } from './useFilterOptions';

export function EditorFilters({
  state,
  dashboardId,
  parameters,
}: {
  state: Omit<EditorFilterState, 'parameters' | 'search'>;
  dashboardId: string;
  parameters: InputParameters;
}) {
  const location = useLocation();
  const navigate = useNavigate();
  const { options, problems } = useFilterOptions(dashboardId, state.defs, parameters);
  if (state.defs.length === 0) return null;
  const commit = (changes: Record<string, string>, tz?: string | null) => {
    navigate(
      { pathname: location.pathname, search: withFilterValues(location.search, changes, state.defaults, tz) },
      { preventScrollReset: true, replace: true },
    );
  };
  const reset = () => {
    const kept = new URLSearchParams(location.search);
    for (const k of [...kept.keys()]) if (k.startsWith(FILTER_PREFIX) || k === TZ_PARAM) kept.delete(k);
    const qs = kept.toString();
    navigate({ pathname: location.pathname, search: qs ? `?${qs}` : '' }, { preventScrollReset: true, replace: true });
  };
  return (
    <div className="editor-filters" data-testid="editor-filters">
      <FilterBar
        defs={state.defs}
        values={state.values}
        options={options}
        zone={state.zone}
        applyImmediately={state.applyImmediately}
        timeZones={state.timeZones}
        tz={state.tz}
        problems={[...state.problems, ...problems]}
        onCommit={commit}
        onReset={reset}
      />
    </div>
  );
}
