/**
 * The filter values of a scheduled e-mail, chosen with the dashboard's own filter bar (the same
 * controls, presets and dropdown options as on the dashboard). The schedule keeps only the values that
 * differ from the dashboard's defaults; a relative range stays relative (lib/schedule-filters.ts).
 */
import { useMemo } from 'react';
import { FilterBar } from '../filters/FilterBar';
import { FieldErrors } from '../editor/Field';
import { useFilterOptions } from '../editor/useFilterOptions';
import { toParameters, type FilterDef } from '../../lib/filters';

export interface ScheduleFilterSetup {
  dashboardId: string;
  defs: FilterDef[];
  /** Each filter's default in URL form, by variable (the dashboard's default_parameters, else the filter's own). */
  defaults: Record<string, string>;
}

interface Props {
  setup: ScheduleFilterSetup;
  /** The schedule's own values (URL form). */
  values: Record<string, string>;
  /** The zone a send reads relative ranges and dates in. */
  zone: string;
  errors: Record<string, string[]>;
  onChange(values: Record<string, string>): void;
}

export function ScheduleFilters({ setup, values, zone, errors, onChange }: Props) {
  const shown = useMemo(() => ({ ...setup.defaults, ...values }), [setup.defaults, values]);
  const key = JSON.stringify([shown, zone]);
  // Dropdown options depend on the values in force (a child follows its parent), as on the dashboard.
  const parameters = useMemo(() => toParameters(setup.defs, shown, { now: Date.now(), zone, tz: null }), [key]); // eslint-disable-line react-hooks/exhaustive-deps
  const { options, problems } = useFilterOptions(setup.dashboardId, setup.defs, parameters);
  const visible = setup.defs.some((d) => !d.hidden);
  const commit = (changes: Record<string, string>) => {
    const next = { ...values };
    for (const [variable, value] of Object.entries(changes)) {
      if (value === (setup.defaults[variable] ?? '')) delete next[variable];
      else next[variable] = value;
    }
    onChange(next);
  };
  const own = Object.keys(values).length;
  return (
    // Enter in a filter control (a dropdown's search, a date) sets that control; it must not submit the schedule form.
    <fieldset
      className="schedule-filters"
      data-testid="schedule-filters"
      onKeyDown={(e) => {
        if (e.key === 'Enter' && e.target instanceof HTMLInputElement) e.preventDefault();
      }}
    >
      <legend>Filter values</legend>
      {visible ? (
        <>
          <p className="muted small">
            The e-mail shows the dashboard with these values. A relative range such as “Last 7 days” is worked out at each send, in the schedule’s time zone.{' '}
            {own
              ? `${own === 1 ? 'One value differs' : `${own} values differ`} from the dashboard’s defaults; Reset goes back to them.`
              : 'These are the dashboard’s defaults.'}
          </p>
          <FilterBar
            defs={setup.defs}
            values={shown}
            options={options}
            zone={zone}
            applyImmediately
            timeZones={null}
            tz={null}
            problems={problems}
            onCommit={commit}
            onReset={() => onChange({})}
          />
        </>
      ) : (
        <p className="muted small">This dashboard has no filters: the e-mail shows it as it is.</p>
      )}
      <FieldErrors name="parameters" errors={errors} />
    </fieldset>
  );
}
