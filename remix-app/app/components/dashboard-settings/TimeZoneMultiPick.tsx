/** A searchable multi-pick of IANA time zones: the chosen ones as removable chips, a search box and the matches. */
import { useMemo, useState } from 'react';
import { FieldErrors } from '../editor/Field';
import { matchZones } from '../../lib/dashboard-settings';

interface Props {
  name: string;
  label: string;
  hint?: string;
  zones: readonly string[];
  value: string[];
  onChange(next: string[]): void;
  errors?: Record<string, string[]>;
  disabled?: boolean;
}

export function TimeZoneMultiPick({ name, label, hint, zones, value, onChange, errors, disabled }: Props) {
  const [query, setQuery] = useState('');
  const matches = useMemo(() => (query.trim() ? matchZones(zones, query, 30) : []), [zones, query]);
  const chosen = new Set(value);
  const toggle = (zone: string) => onChange(chosen.has(zone) ? value.filter((z) => z !== zone) : [...value, zone]);
  const invalid = Boolean(errors?.[name]?.length);
  return (
    <div className={`field zone-pick${invalid ? ' is-invalid' : ''}`} data-testid={`field-${name}`}>
      <span className="field__label" id={`${name}-label`}>
        {label}
      </span>
      <ul className="zone-pick__chips" aria-labelledby={`${name}-label`}>
        {value.length === 0 ? <li className="muted small">None chosen: viewers may pick any time zone.</li> : null}
        {value.map((z) => (
          <li key={z} className="zone-pick__chip" data-testid="zone-chip">
            {z}
            {!disabled ? (
              <button type="button" aria-label={`Remove ${z}`} onClick={() => toggle(z)}>
                ×
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {!disabled ? (
        <>
          <input
            type="search"
            placeholder="Search time zones, e.g. Berlin"
            aria-label={`Search ${label.toLowerCase()}`}
            value={query}
            onChange={(e) => setQuery(e.currentTarget.value)}
            data-testid={`${name}-search`}
          />
          {matches.length ? (
            <ul className="zone-pick__matches" role="listbox" aria-multiselectable="true" aria-label="Matching time zones">
              {matches.map((z) => (
                <li key={z} role="option" aria-selected={chosen.has(z)}>
                  <label className="check">
                    <input type="checkbox" checked={chosen.has(z)} onChange={() => toggle(z)} data-testid={`zone-option-${z}`} />
                    <span>{z}</span>
                  </label>
                </li>
              ))}
            </ul>
          ) : query.trim() ? (
            <p className="muted small">No time zone matches “{query.trim()}”.</p>
          ) : null}
        </>
      ) : null}
      {hint ? <span className="field__hint">{hint}</span> : null}
      <FieldErrors name={name} errors={errors} />
    </div>
  );
}
