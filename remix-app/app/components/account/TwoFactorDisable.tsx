/** Turning two-factor authentication off: the current password and a code (or a recovery code). */
import { Form } from 'react-router';
import { FieldErrors } from '../editor/Field';
import { CodeField } from './CodeField';

export function TwoFactorDisable({ errors, busy }: { errors: Record<string, string[]> | undefined; busy: boolean }) {
  return (
    <Form method="post" className="account-form" aria-label="Turn off two-factor authentication">
      <input type="hidden" name="intent" value="two-factor-disable" />
      <div className="form-grid">
        <label className={`field${errors?.current_password ? ' is-invalid' : ''}`}>
          <span className="field__label">Current password</span>
          <input
            name="current_password"
            type="password"
            required
            maxLength={1024}
            autoComplete="current-password"
            data-testid="two-factor-disable-password"
            aria-invalid={Boolean(errors?.current_password) || undefined}
          />
          <FieldErrors name="current_password" errors={errors} />
        </label>
        <CodeField errors={errors} testId="two-factor-disable" />
      </div>
      <div className="form-actions">
        <button type="submit" className="button button--danger" disabled={busy} data-testid="two-factor-disable">
          {busy ? 'Turning off…' : 'Turn off two-factor authentication'}
        </button>
      </div>
    </Form>
  );
}
