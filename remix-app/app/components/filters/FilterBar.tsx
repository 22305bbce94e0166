/**
 * The dashboard's filter bar: one control per visible filter (17 control types plus the built-in
 * timerange and aggregation), the time-zone selector when the dashboard offers one, and — when the
 * dashboard does not apply filters immediately — Apply and Reset. Values are URL-form strings
 * (lib/filters.ts); the page writes them into the URL.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { aggregationChoices, isDropdown, isListControl, isRangeControl, splitList, type FilterDef, type FilterOption } from '../../lib/filters';
import { wallInput } from '../../lib/filters-range';
import { DropdownControl } from './DropdownControl';
import { RangeControl, rangeSummary } from './RangeControl';

export interface FilterBarProps {
  defs: FilterDef[];
  /** Values in force by variable ('' = unset). */
  values: Record<string, string>;
  options: Record<string, FilterOption[] | undefined>;
  zone: string;
  applyImmediately: boolean;
  timeZones: string[] | null;
  tz: string | null;
  problems: string[];
  /** Writes changed values (and the zone) into the URL. */
  onCommit: (changes: Record<string, string>, tz?: string | null) => void;
  onReset: () => void;
  /** More actions shown next to Reset (the analyst app's "Save as default"); none by default. */
  actions?: ReactNode;
}

const AGG_LABELS: Record<string, string> = {
  second: 'Second',
  minute: 'Minute',
  hour: 'Hour',
  day: 'Day',
  week: 'Week (Monday)',
  week_sunday: 'Week (Sunday)',
  month: 'Month',
  quarter: 'Quarter',
  year: 'Year',
  all_time: 'All time',
};

function TextControl({ def, value, onChange }: { def: FilterDef; value: string; onChange: (v: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const multi = def.controlType === 'input_multi';
  const commit = () => {
    const v = multi
      ? text
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
          .join(',')
      : text.trim();
    if (v !== value) onChange(v);
  };
  return (
    <label className="filter">
      <span className="filter__label">
        {def.label}
        {def.required ? (
          <span className="filter__required" aria-label="required">
            *
          </span>
        ) : null}
      </span>
      <input
        className={`filter__input${def.required && !value ? ' is-invalid' : ''}`}
        type="text"
        inputMode={def.valueType === 'NUMBER' ? 'decimal' : undefined}
        value={text}
        placeholder={multi ? 'Values, comma-separated' : def.valueType === 'NUMBER' ? 'Number' : 'Any'}
        onChange={(e) => setText(e.currentTarget.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            commit();
          }
        }}
        data-testid={`filter-${def.variable}`}
      />
    </label>
  );
}

/** A padlock drawn inline (an emoji needs a font that not every system has). */
function LockIcon() {
  return (
    <svg className="filter__lock" width="11" height="12" viewBox="0 0 11 12" aria-hidden="true" focusable="false">
      <rect x="1" y="5" width="9" height="7" rx="1.5" fill="currentColor" />
      <path d="M3 5V3.5a2.5 2.5 0 0 1 5 0V5" fill="none" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  );
}

/** A filter whose value a signed sharing-link address set: its value with a lock, no control. */
/** A fixed value in words: option labels, a range or aggregation as the controls name them, Yes/No. */
export function fixedValueText(def: FilterDef, value: string, options: FilterOption[] | undefined, zone: string): string {
  const c = def.controlType;
  if (isRangeControl(c)) return rangeSummary(def, value, zone) ?? '';
  if (c === 'date_time_aggregation') return AGG_LABELS[value] ?? value;
  if (c === 'checkbox' || c === 'checkbox_two_way') return value === 'true' ? 'Yes' : value === 'false' ? 'No' : value;
  const labels = new Map((def.manualOptions ?? options ?? []).map((o) => [o.value, o.label]));
  return (isListControl(c) ? splitList(value) : [value]).map((v) => labels.get(v) ?? v).join(', ');
}

function FixedControl({ def, value, options, zone }: { def: FilterDef; value: string; options: FilterOption[] | undefined; zone: string }) {
  const text = fixedValueText(def, value, options, zone);
  return (
    <div className="filter filter--fixed" data-testid={`filter-${def.variable}`} data-fixed="true">
      <span className="filter__label">{def.label}</span>
      <span className="filter__fixed" title="Set by the address of this page; it cannot be changed here">
        <span className="filter__fixed-value">{text || '—'}</span>
        <span className="badge badge--lock">
          <LockIcon /> Fixed
        </span>
      </span>
    </div>
  );
}

function Control({
  def,
  value,
  options,
  zone,
  onChange,
}: {
  def: FilterDef;
  value: string;
  options: FilterOption[] | undefined;
  zone: string;
  onChange: (v: string) => void;
}) {
  const c = def.controlType;
  const label = (
    <span className="filter__label">
      {def.label}
      {def.required ? (
        <span className="filter__required" aria-label="required">
          *
        </span>
      ) : null}
    </span>
  );
  if (isRangeControl(c)) return <RangeControl def={def} value={value} zone={zone} onChange={onChange} />;
  if (isDropdown(c)) return <DropdownControl def={def} value={value} options={def.manualOptions ?? options} onChange={onChange} />;
  switch (c) {
    case 'checkbox':
      return (
        <label className="filter filter--check">
          <input
            type="checkbox"
            checked={value === 'true'}
            onChange={(e) => onChange(e.currentTarget.checked ? 'true' : '')}
            data-testid={`filter-${def.variable}`}
          />
          <span>{def.label}</span>
        </label>
      );
    case 'checkbox_two_way':
      return (
        <div className="filter" role="radiogroup" aria-label={def.label}>
          {label}
          <div className="segmented" data-testid={`filter-${def.variable}`}>
            {[
              ['true', 'Yes'],
              ['false', 'No'],
              ['', 'All'],
            ].map(([v, text]) => (
              <button
                key={text}
                type="button"
                role="radio"
                aria-checked={value === v}
                className={value === v ? 'is-on' : undefined}
                onClick={() => onChange(v!)}
                data-testid={`filter-${def.variable}-${text!.toLowerCase()}`}
              >
                {text}
              </button>
            ))}
          </div>
        </div>
      );
    case 'date':
    case 'time':
    case 'date_time':
      return (
        <label className="filter">
          {label}
          <input
            className={`filter__input${def.required && !value ? ' is-invalid' : ''}`}
            type={c === 'date' ? 'date' : c === 'time' ? 'time' : 'datetime-local'}
            value={
              c === 'date_time' && /^\d+$/.test(value)
                ? wallInput(Number(value), zone)
                : c === 'date_time'
                  ? value.slice(0, 16)
                  : c === 'time'
                    ? value.slice(0, 5)
                    : value
            }
            onChange={(e) => onChange(e.currentTarget.value)}
            data-testid={`filter-${def.variable}`}
          />
        </label>
      );
    case 'date_time_aggregation':
      return (
        <label className="filter">
          {label}
          <select className="filter__input" value={value} onChange={(e) => onChange(e.currentTarget.value)} data-testid={`filter-${def.variable}`}>
            {!def.builtin && !def.defaultValue ? <option value="">Default</option> : null}
            {def.builtin ? <option value="">Day (default)</option> : null}
            {aggregationChoices(def).map((a) => (
              <option key={a} value={a}>
                {AGG_LABELS[a] ?? a}
              </option>
            ))}
          </select>
        </label>
      );
    default:
      return <TextControl def={def} value={value} onChange={onChange} />;
  }
}

export function FilterBar(props: FilterBarProps) {
  const { defs, values, options, zone, applyImmediately, timeZones, tz, problems, onCommit, onReset, actions } = props;
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [draftTz, setDraftTz] = useState<string | null | undefined>(undefined);
  const visible = defs.filter((d) => !d.hidden);
  if (visible.length === 0 && !timeZones && problems.length === 0) return null;
  const pending = Object.keys(draft).length > 0 || draftTz !== undefined;
  const change = (variable: string, value: string) => {
    if (applyImmediately) onCommit({ [variable]: value });
    else setDraft((d) => ({ ...d, [variable]: value }));
  };
  const shown = (variable: string) => draft[variable] ?? values[variable] ?? '';
  return (
    <section className="filter-bar" aria-label="Dashboard filters" data-testid="filter-bar">
      <div className="filter-bar__fields">
        {visible.map((d) =>
          d.fixed ? (
            <FixedControl key={d.id} def={d} value={values[d.variable] ?? ''} options={options[d.variable]} zone={zone} />
          ) : (
            <Control key={d.id} def={d} value={shown(d.variable)} options={options[d.variable]} zone={zone} onChange={(v) => change(d.variable, v)} />
          ),
        )}
        {timeZones ? (
          <label className="filter">
            <span className="filter__label">Time zone</span>
            <select
              className="filter__input"
              value={draftTz ?? tz ?? ''}
              onChange={(e) => (applyImmediately ? onCommit({}, e.currentTarget.value || null) : setDraftTz(e.currentTarget.value || null))}
              data-testid="filter-tz"
            >
              <option value="">{zone} (default)</option>
              {timeZones.map((z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ))}
            </select>
          </label>
        ) : null}
      </div>
      <div className="filter-bar__actions">
        {actions}
        <button
          type="button"
          className="button button--ghost button--small"
          onClick={() => {
            setDraft({});
            setDraftTz(undefined);
            onReset();
          }}
          data-testid="filter-reset"
        >
          Reset
        </button>
        {!applyImmediately ? (
          <button
            type="button"
            className="button button--primary button--small"
            disabled={!pending}
            onClick={() => {
              onCommit(draft, draftTz);
              setDraft({});
              setDraftTz(undefined);
            }}
            data-testid="filter-apply"
          >
            Apply
          </button>
        ) : null}
      </div>
      {problems.length > 0 ? (
        <ul className="filter-bar__problems" role="alert">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
