/**
 * The second factor as a form field: a 6-digit code of the authenticator app (`code`), or — after
 * "Use a recovery code" — one of the recovery codes (`recovery_code`). Used by sign-in and by
 * turning two-factor authentication off.
 */
import { useState } from 'react';
import { FieldErrors } from '../editor/Field';

export function CodeField({
  errors,
  testId,
  allowRecovery = true,
  autoFocus = false,
}: {
  errors: Record<string, string[]> | undefined;
  testId: string;
  allowRecovery?: boolean;
  autoFocus?: boolean;
}) {
  const [recovery, setRecovery] = useState(Boolean(errors?.recovery_code));
  const name = recovery ? 'recovery_code' : 'code';
  return (
    <div className="code-field">
      <label className={`field${errors?.[name] ? ' is-invalid' : ''}`}>
        <span className="field__label">{recovery ? 'Recovery code' : 'Code from your authenticator app'}</span>
        <input
          key={name}
          name={name}
          required
          autoFocus={autoFocus}
          autoComplete={recovery ? 'off' : 'one-time-code'}
          inputMode={recovery ? 'text' : 'numeric'}
          maxLength={recovery ? 40 : 7}
          placeholder={recovery ? 'xxxxx-xxxxx' : '123456'}
          data-testid={`${testId}-${recovery ? 'recovery-code' : 'code'}`}
          aria-invalid={Boolean(errors?.[name]) || undefined}
        />
        <FieldErrors name={name} errors={errors} />
      </label>
      {allowRecovery ? (
        <button type="button" className="button button--small button--ghost" onClick={() => setRecovery(!recovery)} data-testid={`${testId}-toggle`}>
          {recovery ? 'Use a code from the app' : 'Use a recovery code'}
        </button>
      ) : null}
    </div>
  );
}
