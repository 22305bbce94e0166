/** One labelled field of the SQL alert form with the API's messages for it underneath. */
import type { ReactNode } from 'react';

export function AlertField({
  label,
  name,
  errors,
  hint,
  wide,
  children,
}: {
  label: string;
  name: string;
  errors: Record<string, string[]>;
  hint?: string;
  wide?: boolean;
  children: ReactNode;
}) {
  const messages = errors[name];
  return (
    <label className={`field${wide ? ' field--wide' : ''}`} data-field={name}>
      <span className="field__label">{label}</span>
      {children}
      {hint ? <span className="field__hint">{hint}</span> : null}
      {messages?.length ? (
        <span className="row-error" role="alert" data-testid={`error-${name}`}>
          {messages.join(' ')}
        </span>
      ) : null}
    </label>
  );
}
