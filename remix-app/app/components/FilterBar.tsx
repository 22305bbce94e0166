import { useState, type FormEvent } from 'react';
import { useLocation, useNavigate, useNavigation } from 'react-router';
import { dateToUnix, FILTER_PREFIX, isRangeControl, unixToDate } from '../lib/filters';

export interface FilterView {
  id: string;
  label: string;
  variable: string;
  controlType: string;
  /** Options of a manual dropdown; null when the API does not return them (write-only). */
  options: { value: string; label: string }[] | null;
  multiple: boolean;
}

interface Props {
  filters: FilterView[];
  values: Record<string, string>;
  problems: string[];
}

function isDropdown(controlType: string) {
  return controlType.startsWith('dropdown');
}

export function FilterBar({ filters, values, problems }: Props) {
  const navigate = useNavigate();
  const location = useLocation();
  const navigation = useNavigation();
  const [draft, setDraft] = useState<Record<string, string>>(values);
  const [error, setError] = useState<string | null>(null);
  const busy = navigation.state === 'loading';

  if (filters.length === 0 && problems.length === 0) return null;

  const set = (variable: string, value: string) => setDraft((d) => ({ ...d, [variable]: value }));

  function apply(e: FormEvent) {
    e.preventDefault();
    const params = new URLSearchParams(location.search);
    for (const key of [...params.keys()]) if (key.startsWith(FILTER_PREFIX)) params.delete(key);
    for (const f of filters) {
      const v = (draft[f.variable] ?? '').trim();
      if (!v || v === '~') continue;
      if (isRangeControl(f.controlType)) {
        const [s, t] = v.split('~');
        if (s && t && Number(s) > Number(t)) {
          setError(`“${f.label}”: the end date is before the start date.`);
          return;
        }
      }
      params.set(FILTER_PREFIX + f.variable, v);
    }
    setError(null);
    const qs = params.toString();
    navigate({ pathname: location.pathname, search: qs ? `?${qs}` : '' });
  }

  function reset() {
    setDraft({});
    setError(null);
    const params = new URLSearchParams(location.search);
    for (const key of [...params.keys()]) if (key.startsWith(FILTER_PREFIX)) params.delete(key);
    const qs = params.toString();
    navigate({ pathname: location.pathname, search: qs ? `?${qs}` : '' });
  }

  return (
    <form className="filter-bar" onSubmit={apply} aria-label="Dashboard filters" data-testid="filter-bar">
      <div className="filter-bar__fields">
        {filters.map((f) => (
          <div className="filter" key={f.id}>
            {isRangeControl(f.controlType) ? (
              <RangeFilter filter={f} value={draft[f.variable] ?? ''} onChange={(v) => set(f.variable, v)} />
            ) : isDropdown(f.controlType) && f.options ? (
              <label className="field field--inline">
                <span className="field__label">{f.label}</span>
                <select
                  multiple={f.multiple}
                  size={f.multiple ? Math.min(4, Math.max(2, f.options.length)) : undefined}
                  value={f.multiple ? (draft[f.variable] ?? '').split(',').filter(Boolean) : (draft[f.variable] ?? '')}
                  onChange={(e) => set(f.variable, Array.from(e.currentTarget.selectedOptions, (o) => o.value).join(','))}
                  data-testid={`filter-${f.variable}`}
                >
                  {!f.multiple ? <option value="">All</option> : null}
                  {f.options.map((o) => (
                    <option key={o.value} value={o.value}>{o.label}</option>
                  ))}
                </select>
              </label>
            ) : (
              <label className="field field--inline">
                <span className="field__label">
                  {f.label} <code className="filter__var">{f.variable}</code>
                </span>
                <input
                  type="text"
                  value={draft[f.variable] ?? ''}
                  placeholder={isDropdown(f.controlType) ? 'Values, comma-separated' : 'Value'}
                  onChange={(e) => set(f.variable, e.currentTarget.value)}
                  data-testid={`filter-${f.variable}`}
                />
                {isDropdown(f.controlType) ? (
                  <span className="field__hint">The API does not return this filter’s options; type the values.</span>
                ) : null}
              </label>
            )}
          </div>
        ))}
      </div>
      <div className="filter-bar__actions">
        <button type="button" className="button button--ghost" onClick={reset} disabled={busy}>Reset</button>
        <button type="submit" className="button button--primary" disabled={busy} data-testid="filter-apply">
          {busy ? 'Applying…' : 'Apply'}
        </button>
      </div>
      {error || problems.length > 0 ? (
        <ul className="filter-bar__problems" role="alert">
          {error ? <li>{error}</li> : null}
          {problems.map((p) => <li key={p}>{p}</li>)}
        </ul>
      ) : null}
    </form>
  );
}

function RangeFilter({ filter, value, onChange }: { filter: FilterView; value: string; onChange: (v: string) => void }) {
  const [start = '', end = ''] = value.split('~');
  const update = (which: 'start' | 'end', date: string) => {
    const unix = date ? dateToUnix(date) : null;
    const s = which === 'start' ? (unix === null ? '' : String(unix)) : start;
    const t = which === 'end' ? (unix === null ? '' : String(unix)) : end;
    onChange(s || t ? `${s}~${t}` : '');
  };
  return (
    <fieldset className="range-filter">
      <legend className="field__label">{filter.label}</legend>
      <div className="range-filter__inputs">
        <input type="date" aria-label={`${filter.label} from`} value={unixToDate(start)} onChange={(e) => update('start', e.currentTarget.value)} data-testid={`filter-${filter.variable}-start`} />
        <span aria-hidden="true" className="muted">→</span>
        <input type="date" aria-label={`${filter.label} to`} value={unixToDate(end)} onChange={(e) => update('end', e.currentTarget.value)} data-testid={`filter-${filter.variable}-end`} />
      </div>
    </fieldset>
  );
}
