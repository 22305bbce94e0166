/** The dashboard's colour scheme: one radio per scheme with a preview of its colours. */
import { paletteFor } from '../charts/palette';
import { FieldErrors } from '../editor/Field';
import { COLOR_SCHEMES } from '../../lib/dashboard-settings';

interface Props {
  name: string;
  value: string;
  onChange(next: string): void;
  errors?: Record<string, string[]>;
  disabled?: boolean;
}

export function ColorSchemePicker({ name, value, onChange, errors, disabled }: Props) {
  return (
    <fieldset className="field scheme-pick" data-testid={`field-${name}`}>
      <legend className="field__label">Colour scheme</legend>
      <div className="scheme-pick__list">
        {COLOR_SCHEMES.map((s, i) => (
          <label key={s} className={`scheme-pick__item${value === s ? ' is-active' : ''}`}>
            <input type="radio" name={name} value={s} checked={value === s} disabled={disabled} onChange={() => onChange(s)} data-testid={`scheme-${s}`} />
            <span className="scheme-pick__name">
              Scheme {i + 1}
              {s === 'scheme_6' ? ' (default)' : ''}
            </span>
            <span className="scheme-pick__swatches" aria-hidden="true">
              {paletteFor(s).map((c) => (
                <span key={c} style={{ background: c }} />
              ))}
            </span>
          </label>
        ))}
      </div>
      <FieldErrors name={name} errors={errors} />
    </fieldset>
  );
}
