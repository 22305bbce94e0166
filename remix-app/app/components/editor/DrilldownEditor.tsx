/**
 * The chart tab's drill-down: which dashboard a click on a bar, a slice or a table row opens, which
 * result columns set which of its filters, whether the viewer's other filter values come along and
 * whether it opens in a new tab. Written into `chart_configuration.drilldown` (charts/drilldown.ts).
 */
import type { DataField } from '../../lib/types';

export interface DrillTarget {
  id: string;
  name: string;
  /** The target's filter variables, the mapping's choices. */
  variables: string[];
}

type Mapping = { column: string; variable: string };
type Value = { dashboard_id?: string; mapping?: Mapping[]; keep_filters?: boolean; new_tab?: boolean } | undefined;

interface Props {
  value: Value;
  targets: DrillTarget[];
  fields: DataField[];
  onChange(value: Value): void;
}

export function DrilldownEditor({ value, targets, fields, onChange }: Props) {
  const target = targets.find((t) => t.id === value?.dashboard_id);
  const mapping = value?.mapping ?? [];
  const set = (patch: Partial<NonNullable<Value>>) => onChange({ ...value, ...patch });
  const setMapping = (variable: string, column: string) => {
    const rest = mapping.filter((m) => m.variable !== variable);
    set({ mapping: column ? [...rest, { variable, column }] : rest });
  };
  return (
    <fieldset className="chart-config__group" data-testid="drilldown-editor">
      <legend>Drill-down</legend>
      <p className="muted small">A click on a bar, a slice or a table row opens another dashboard, filtered by the values of that row.</p>
      <div className="chart-config__grid">
        <label className="field">
          <span className="field__label">Open dashboard</span>
          <select
            value={value?.dashboard_id ?? ''}
            onChange={(e) =>
              onChange(e.target.value ? { dashboard_id: e.target.value, mapping: [], keep_filters: value?.keep_filters, new_tab: value?.new_tab } : undefined)
            }
            data-testid="drilldown-dashboard"
          >
            <option value="">No drill-down</option>
            {targets.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        {value?.dashboard_id && !target ? (
          <p className="field__error" role="alert">
            The dashboard this report drilled into no longer exists or is not visible to you.
          </p>
        ) : null}
        {target ? (
          target.variables.length === 0 ? (
            <p className="muted small">“{target.name}” has no filters: the drill-down opens it as it is.</p>
          ) : (
            target.variables.map((variable) => (
              <label key={variable} className="field">
                <span className="field__label">
                  Filter <code>{variable}</code> from
                </span>
                <select
                  value={mapping.find((m) => m.variable === variable)?.column ?? ''}
                  onChange={(e) => setMapping(variable, e.target.value)}
                  data-testid={`drilldown-map-${variable}`}
                >
                  <option value="">(not set by the click)</option>
                  {fields.map((f) => (
                    <option key={f.name} value={f.name}>
                      {f.name}
                    </option>
                  ))}
                  {mapping.some((m) => m.variable === variable && !fields.some((f) => f.name === m.column)) ? (
                    <option value={mapping.find((m) => m.variable === variable)!.column}>
                      {mapping.find((m) => m.variable === variable)!.column} (not in the last result)
                    </option>
                  ) : null}
                </select>
              </label>
            ))
          )
        ) : null}
        {target ? (
          <>
            <label className="check">
              <input
                type="checkbox"
                checked={value?.keep_filters !== false}
                onChange={(e) => set({ keep_filters: e.target.checked ? undefined : false })}
                data-testid="drilldown-keep"
              />
              <span>Carry the current filter values over</span>
            </label>
            <label className="check">
              <input
                type="checkbox"
                checked={value?.new_tab === true}
                onChange={(e) => set({ new_tab: e.target.checked ? true : undefined })}
                data-testid="drilldown-new-tab"
              />
              <span>Open in a new tab</span>
            </label>
          </>
        ) : null}
      </div>
    </fieldset>
  );
}
