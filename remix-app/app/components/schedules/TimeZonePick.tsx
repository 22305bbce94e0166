/**
 * One IANA time zone, searchable: the chosen zone, a search box and the matching zones (the same
 * matching as the dashboard settings' multi-pick, lib/dashboard-settings.ts). Used by scheduled
 * e-mails and the organization settings. With `name`, a hidden input carries the value for plain forms.
 */
import { useMemo, useState } from 'react';
import { FieldErrors } from '../editor/Field';
import { allTimeZones, matchZones } from '../../lib/dashboard-settings';
import './schedules.css';

interface Props {
  name: string;
  label: string;
  value: string;
  onChange(next: string): void;
  /** What an empty value means ("The organization’s"); without it a zone must be chosen. */
  emptyLabel?: string;
  hint?: string;
  errors?: Record<string, string[]>;
  /** Submit the value with a plain form. */
  formField?: boolean;
}

export function TimeZonePick({ name, label, value, onChange, emptyLabel, hint, errors, formField }: Props) {
  const zones = useMemo(() => allTimeZones(), []);
  const [query, setQuery] = useState('');
  const matches = useMemo(() => (query.trim() ? matchZones(zones, query, 30) : []), [zones, query]);
  const invalid = Boolean(errors?.[name]?.length);
  const choose = (zone: string) => {
    onChange(zone);
    setQuery('');
  };
  return (
    <div className={`field zone-pick${invalid ? ' is-invalid' : ''}`} data-testid={`field-${name}`}>
      <span className="field__label" id={`${name}-label`}>
        {label}
      </span>
      {formField ? <input type="hidden" name={name} value={value} /> : null}
      <span className="zone-pick__current" aria-labelledby={`${name}-label`}>
        <strong data-testid={`${name}-value`}>{value || emptyLabel || 'None chosen'}</strong>
        {value && emptyLabel ? (
          <button type="button" className="link-button small" onClick={() => choose('')} data-testid={`${name}-clear`}>
            use {emptyLabel.toLowerCase()}
          </button>
        ) : null}
      </span>
      <input
        type="search"
        placeholder="Search time zones, e.g. Tokyo or New York"
        aria-label={`Search ${label.toLowerCase()}`}
        value={query}
        onChange={(e) => setQuery(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && matches[0]) {
            e.preventDefault();
            choose(matches[0]);
          }
        }}
        data-testid={`${name}-search`}
      />
      {matches.length ? (
        <ul className="zone-pick__matches" role="listbox" aria-label="Matching time zones">
          {matches.map((z) => (
            <li key={z} role="option" aria-selected={z === value}>
              <button type="button" className="link-button" onClick={() => choose(z)} data-testid={`zone-choice-${z}`}>
                {z}
              </button>
            </li>
          ))}
        </ul>
      ) : query.trim() ? (
        <p className="muted small">No time zone matches “{query.trim()}”.</p>
      ) : null}
      {hint ? <span className="field__hint">{hint}</span> : null}
      <FieldErrors name={name} errors={errors} />
    </div>
  );
}
