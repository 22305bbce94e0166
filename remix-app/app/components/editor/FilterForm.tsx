/**
 * Create or edit a filter: every attribute of the Filter entity, showing only those that apply to the
 * chosen control (values and labels for manual dropdowns, the options query and datasource for query
 * dropdowns, a parent for dynamic ones, range switches, allowed aggregations). The API's errors are
 * shown by the field they point at.
 */
import { useState } from 'react';
import { AGGREGATION_OPTIONS, CONTROL_LABELS, CONTROL_TYPES, filterSections, RANGE_SWITCHES, valueTypesFor, type ControlType } from '../../lib/editor-filters';
import { unplacedErrors, type FormState } from '../../lib/editor-forms';
import { CheckField, FieldErrors, FormErrors, SelectField, TextField } from './Field';
import { FilterSqlBox } from './FilterSqlBox';

interface Props {
  initial: FormState;
  mode: 'create' | 'update';
  datasources: { id: string; name: string; database_type?: string }[];
  /** The dashboard the form edits filters of, and its filters: the options query runs with them. */
  dashboardId: string;
  variables: { variable_name: string; display_name?: string | null; control_type: string }[];
  /** Other filters that can be the parent of a dynamic dropdown. */
  parents: { id: string; label: string }[];
  lastQuery?: { success: string | null; error: string | null } | null;
  errors: Record<string, string[]>;
  busy: boolean;
  onSubmit(form: FormState): void;
  onCancel(): void;
}

const PLACED = [
  'display_name',
  'variable_name',
  'control_type',
  'value_type',
  'required',
  'default_values',
  'values',
  'value_names',
  'dropdown_validate',
  'dropdown_default_to_first',
  'sql_query',
  'data_refresh_rate',
  'datasource',
  'parent_filter',
  'allowed_aggregations',
  'dashboards',
  ...RANGE_SWITCHES.map((r) => r.name),
];

export function FilterForm({ initial, mode, datasources, dashboardId, variables, parents, lastQuery, errors, busy, onSubmit, onCancel }: Props) {
  const [form, setForm] = useState<FormState>(initial);
  const set = (k: string, v: unknown) => setForm((f) => ({ ...f, [k]: v as FormState[string] }));
  const control = String(form.control_type) as ControlType;
  const s = filterSections(control);
  const valueTypes = valueTypesFor(control);
  const str = (k: string) => (typeof form[k] === 'string' ? (form[k] as string) : '');
  const allowed = Array.isArray(form.allowed_aggregations) ? (form.allowed_aggregations as string[]) : [];

  const changeControl = (next: string) => {
    const types = valueTypesFor(next as ControlType);
    setForm((f) => ({ ...f, control_type: next, value_type: types.includes(String(f.value_type)) ? f.value_type : types[0]! }));
  };

  return (
    <form
      className="editor-form"
      data-testid="filter-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(form);
      }}
    >
      <h3>{mode === 'create' ? 'New filter' : `Filter “${str('variable_name')}”`}</h3>
      <FormErrors messages={unplacedErrors(errors, PLACED)} />
      <div className="field-row">
        <TextField
          name="display_name"
          label="Label"
          placeholder="shown in the filter bar"
          value={str('display_name')}
          onChange={(v) => set('display_name', v)}
          errors={errors}
        />
        <TextField
          name="variable_name"
          label="Variable name"
          hint={
            <>
              Used in SQL as <code>{`{[column]=${str('variable_name') || 'variable'}}`}</code>; letters, digits, _ and -.
            </>
          }
          value={str('variable_name')}
          onChange={(v) => set('variable_name', v)}
          errors={errors}
          required
        />
      </div>
      <div className="field-row">
        <SelectField
          name="control_type"
          label="Control"
          value={control}
          onChange={changeControl}
          errors={errors}
          options={CONTROL_TYPES.map((c) => ({ value: c, label: CONTROL_LABELS[c] }))}
        />
        <SelectField
          name="value_type"
          label="Value type"
          value={String(form.value_type)}
          onChange={(v) => set('value_type', v)}
          errors={errors}
          options={valueTypes.map((t) => ({ value: t, label: t }))}
        />
      </div>
      {s.manualValues ? (
        <TextField
          name="values"
          label="Values"
          hint="One per line; write value = label to show a label, e.g. DE = Germany."
          value={str('options_text')}
          onChange={(v) => set('options_text', v)}
          errors={{ values: [...(errors.values ?? []), ...(errors.value_names ?? [])] }}
          multiline
          rows={5}
          testId="field-options"
        />
      ) : null}
      {s.query ? (
        <fieldset>
          <legend>Options from a query{s.queryRequired ? '' : ' (optional)'}</legend>
          <SelectField
            name="datasource"
            label="Datasource"
            value={str('datasource')}
            onChange={(v) => set('datasource', v)}
            errors={errors}
            options={[{ value: '', label: '—' }, ...datasources.map((d) => ({ value: d.id, label: d.name }))]}
          />
          <FilterSqlBox
            value={str('sql_query')}
            onChange={(v) => set('sql_query', v)}
            datasource={datasources.find((d) => d.id === str('datasource')) ?? null}
            dashboardId={dashboardId}
            variables={variables}
          />
          <FieldErrors name="sql_query" errors={errors} />
          <TextField
            name="data_refresh_rate"
            label="Refresh the options every (minutes)"
            type="number"
            value={str('data_refresh_rate')}
            onChange={(v) => set('data_refresh_rate', v)}
            errors={errors}
          />
          {lastQuery?.error ? (
            <p className="field__error">Last run failed: {lastQuery.error}</p>
          ) : lastQuery?.success ? (
            <p className="muted small">Options last loaded {new Date(lastQuery.success).toLocaleString('en')}.</p>
          ) : null}
        </fieldset>
      ) : null}
      {s.parent ? (
        <SelectField
          name="parent_filter"
          label="Parent filter"
          hint="Its value narrows this filter’s options (use its variable in the options query)."
          value={str('parent_filter')}
          onChange={(v) => set('parent_filter', v)}
          errors={errors}
          options={[{ value: '', label: 'None' }, ...parents.map((p) => ({ value: p.id, label: p.label }))]}
        />
      ) : null}
      {s.ranges ? (
        <fieldset>
          <legend>Ranges offered</legend>
          {RANGE_SWITCHES.map((r) => (
            <CheckField key={r.name} name={r.name} label={r.label} checked={form[r.name] !== false} onChange={(v) => set(r.name, v)} errors={errors} />
          ))}
        </fieldset>
      ) : null}
      {s.aggregations ? (
        <fieldset>
          <legend>Aggregations offered (none ticked: all but “all time”)</legend>
          <div className="agg-choices">
            {AGGREGATION_OPTIONS.map((a) => (
              <label key={a} className="check">
                <input
                  type="checkbox"
                  checked={allowed.includes(a)}
                  onChange={(e) => set('allowed_aggregations', e.target.checked ? [...allowed, a] : allowed.filter((x) => x !== a))}
                />
                <span>{a.replace('_', ' ')}</span>
              </label>
            ))}
          </div>
          <FieldErrors name="allowed_aggregations" errors={errors} />
        </fieldset>
      ) : null}
      <TextField
        name="default_values"
        label="Default value"
        hint={
          s.ranges
            ? 'A range as start~end (e.g. 2025-01-01~2025-03-31); either side may be empty.'
            : control.includes('multi')
              ? 'One value per line.'
              : control === 'date_time_aggregation'
                ? 'An aggregation name, e.g. month.'
                : 'Empty: no default.'
        }
        value={str('default_values_text')}
        onChange={(v) => set('default_values_text', v)}
        errors={errors}
        multiline={control.includes('multi')}
        rows={3}
      />
      <CheckField
        name="required"
        label="Required: reports wait until a value is chosen"
        checked={form.required === true}
        onChange={(v) => set('required', v)}
        errors={errors}
      />
      {s.dropdownOptions ? (
        <>
          <CheckField
            name="dropdown_validate"
            label="Accept only the listed options"
            checked={form.dropdown_validate === true}
            onChange={(v) => set('dropdown_validate', v)}
            errors={errors}
          />
          <CheckField
            name="dropdown_default_to_first"
            label="Without a value, use the first option"
            checked={form.dropdown_default_to_first === true}
            onChange={(v) => set('dropdown_default_to_first', v)}
            errors={errors}
          />
        </>
      ) : null}
      <div className="editor-form__actions">
        <button type="submit" className="button button--primary" disabled={busy} data-testid="filter-save">
          {busy ? 'Saving…' : mode === 'create' ? 'Create filter' : 'Save filter'}
        </button>
        <button type="button" className="button button--ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
