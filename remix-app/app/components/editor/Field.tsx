/** Form controls of the editor pages, each with the API's messages for its field shown beneath it. */
import type { ReactNode } from 'react';

export function FieldErrors({ name, errors }: { name: string; errors?: Record<string, string[]> }) {
  const list = errors?.[name];
  if (!list?.length) return null;
  return (
    <span className="field__error" role="alert" data-testid={`error-${name}`}>
      {list.join(' ')}
    </span>
  );
}

interface Base {
  name: string;
  label: string;
  hint?: ReactNode;
  errors?: Record<string, string[]>;
  /** The test id; default `field-<name>`. */
  testId?: string;
}

export function TextField(
  props: Base & {
    value: string;
    onChange(v: string): void;
    type?: string;
    placeholder?: string;
    multiline?: boolean;
    rows?: number;
    required?: boolean;
    mono?: boolean;
    autoComplete?: string;
  },
) {
  const { name, label, hint, errors, value, onChange, type = 'text', placeholder, multiline, rows = 3, required, mono, autoComplete } = props;
  const id = `f-${name}`;
  const invalid = Boolean(errors?.[name]?.length);
  return (
    <label className={`field${invalid ? ' is-invalid' : ''}`} htmlFor={id}>
      <span className="field__label">
        {label}
        {required ? <span aria-hidden="true"> *</span> : null}
      </span>
      {multiline ? (
        <textarea
          id={id}
          name={name}
          rows={rows}
          value={value}
          placeholder={placeholder}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={invalid}
          className={mono ? 'mono' : undefined}
          data-testid={props.testId ?? `field-${name}`}
        />
      ) : (
        <input
          id={id}
          name={name}
          type={type}
          value={value}
          placeholder={placeholder}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={invalid}
          required={required}
          autoComplete={autoComplete}
          data-testid={props.testId ?? `field-${name}`}
        />
      )}
      {hint ? <span className="field__hint">{hint}</span> : null}
      <FieldErrors name={name} errors={errors} />
    </label>
  );
}

export function CheckField({ name, label, hint, errors, checked, onChange, testId }: Base & { checked: boolean; onChange(v: boolean): void }) {
  return (
    <div className="check-field">
      <label className="check" htmlFor={`f-${name}`}>
        <input
          id={`f-${name}`}
          name={name}
          type="checkbox"
          checked={checked}
          onChange={(e) => onChange(e.target.checked)}
          data-testid={testId ?? `field-${name}`}
        />
        <span>{label}</span>
      </label>
      {hint ? <span className="field__hint">{hint}</span> : null}
      <FieldErrors name={name} errors={errors} />
    </div>
  );
}

export function SelectField({
  name,
  label,
  hint,
  errors,
  value,
  onChange,
  options,
  testId,
  disabled,
}: Base & { value: string; onChange(v: string): void; options: readonly { value: string; label: string }[]; disabled?: boolean }) {
  const id = `f-${name}`;
  const invalid = Boolean(errors?.[name]?.length);
  return (
    <label className={`field${invalid ? ' is-invalid' : ''}`} htmlFor={id}>
      <span className="field__label">{label}</span>
      <select
        id={id}
        name={name}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={invalid}
        disabled={disabled}
        data-testid={testId ?? `field-${name}`}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {hint ? <span className="field__hint">{hint}</span> : null}
      <FieldErrors name={name} errors={errors} />
    </label>
  );
}

/** Messages of the API that no field of the form shows. */
export function FormErrors({ messages }: { messages: string[] }) {
  if (!messages.length) return null;
  return (
    <div className="alert alert--error" role="alert" data-testid="form-errors">
      {messages.length === 1 ? (
        <p>{messages[0]}</p>
      ) : (
        <ul>
          {messages.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
