/** Dropdowns (single and multi, manual or query-driven): a searchable list in a popover. */
import { useMemo, useState } from 'react';
import { isListControl, splitList, type FilterDef, type FilterOption } from '../../lib/filters';
import { Popover } from './Popover';

interface Props {
  def: FilterDef;
  value: string;
  options: FilterOption[] | undefined;
  onChange: (value: string) => void;
}

const MAX_SHOWN = 300;

export function DropdownControl({ def, value, options, onChange }: Props) {
  const multi = isListControl(def.controlType);
  const selected = multi ? splitList(value) : value ? [value] : [];
  const [query, setQuery] = useState('');
  const labelOf = useMemo(() => new Map((options ?? []).map((o) => [o.value, o.label])), [options]);
  const summary =
    selected.length === 0 ? (
      <span className="muted">All</span>
    ) : selected.length <= 2 ? (
      selected.map((v) => labelOf.get(v) ?? v).join(', ')
    ) : (
      `${selected.length} selected`
    );
  const q = query.trim().toLowerCase();
  const filtered = (options ?? []).filter((o) => !q || o.label.toLowerCase().includes(q) || o.value.toLowerCase().includes(q));
  const custom = q && !def.validate && !(options ?? []).some((o) => o.value.toLowerCase() === q) ? query.trim() : null;
  const toggle = (v: string) => {
    if (!multi) return onChange(selected[0] === v ? '' : v);
    const next = selected.includes(v) ? selected.filter((s) => s !== v) : [...selected, v];
    onChange(next.join(','));
  };
  return (
    <Popover label={def.label} summary={summary} testId={`filter-${def.variable}`} active={selected.length > 0} invalid={def.required && selected.length === 0}>
      {(close) => (
        <div className="dropdown-panel">
          <input
            type="search"
            className="dropdown-panel__search"
            placeholder={options ? 'Search' : 'Type a value'}
            value={query}
            onChange={(e) => setQuery(e.currentTarget.value)}
            onKeyDown={(e) => {
              // Enter picks the typed value here; it never submits a form the filter bar sits in.
              if (e.key === 'Enter') e.preventDefault();
              if (e.key === 'Enter' && custom) {
                toggle(custom);
                setQuery('');
              }
            }}
            autoFocus
            data-testid={`filter-${def.variable}-search`}
            aria-label={`Search ${def.label}`}
          />
          {options === undefined ? <p className="dropdown-panel__hint">Loading the options…</p> : null}
          <ul className="dropdown-panel__list" role="listbox" aria-multiselectable={multi}>
            {filtered.slice(0, MAX_SHOWN).map((o) => {
              const on = selected.includes(o.value);
              return (
                <li key={o.value} role="option" aria-selected={on}>
                  <label className={`dropdown-panel__option${on ? ' is-on' : ''}`}>
                    <input
                      type={multi ? 'checkbox' : 'radio'}
                      name={`dd-${def.variable}`}
                      checked={on}
                      onChange={() => {
                        toggle(o.value);
                        if (!multi) close();
                      }}
                      data-testid={`filter-${def.variable}-option-${o.value}`}
                    />
                    <span>{o.label}</span>
                  </label>
                </li>
              );
            })}
            {custom ? (
              <li>
                <button
                  type="button"
                  className="dropdown-panel__custom"
                  onClick={() => {
                    toggle(custom);
                    setQuery('');
                  }}
                >
                  Use “{custom}”
                </button>
              </li>
            ) : null}
          </ul>
          {filtered.length > MAX_SHOWN ? <p className="dropdown-panel__hint">{filtered.length - MAX_SHOWN} more — refine the search.</p> : null}
          {options && filtered.length === 0 && !custom ? <p className="dropdown-panel__hint">No options match.</p> : null}
          <div className="dropdown-panel__actions">
            <button type="button" className="button button--ghost button--small" onClick={() => onChange('')} disabled={selected.length === 0}>
              Clear
            </button>
            {multi && options?.length ? (
              <button type="button" className="button button--ghost button--small" onClick={() => onChange(filtered.map((o) => o.value).join(','))}>
                Select {q ? 'matches' : 'all'}
              </button>
            ) : null}
            <button type="button" className="button button--small" onClick={close}>
              Done
            </button>
          </div>
        </div>
      )}
    </Popover>
  );
}
