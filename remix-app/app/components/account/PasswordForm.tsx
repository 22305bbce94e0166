/** Personal settings: a new password, with the current one (the API checks both). */
import { useEffect, useRef } from 'react';
import { Form } from 'react-router';
import { FieldErrors } from '../editor/Field';
import type { AccountAnswer } from '../../lib/account';
import { FormMessages } from './FormMessages';

const FIELDS = ['current_password', 'new_password', 'new_password_again'];

export function PasswordForm({ answer, busy, minLength }: { answer: AccountAnswer | undefined; busy: boolean; minLength: number }) {
  const mine = answer?.intent === 'password' ? answer : undefined;
  const errors = mine && !mine.ok ? mine.errors : undefined;
  const form = useRef<HTMLFormElement>(null);
  // A changed password does not stay in the fields.
  useEffect(() => {
    if (mine?.ok) form.current?.reset();
  }, [mine]);
  const input = (name: string, label: string, autoComplete: string, hint?: string) => (
    <label className={`field${errors?.[name] ? ' is-invalid' : ''}`}>
      <span className="field__label">{label}</span>
      <input
        name={name}
        type="password"
        required
        maxLength={1024}
        autoComplete={autoComplete}
        minLength={name === 'current_password' ? undefined : minLength}
        data-testid={`account-${name.replace(/_/g, '-')}`}
        aria-invalid={Boolean(errors?.[name]) || undefined}
      />
      {hint ? <span className="field__hint">{hint}</span> : null}
      <FieldErrors name={name} errors={errors} />
    </label>
  );
  return (
    <Form method="post" className="card account-form" aria-label="Change password" ref={form}>
      <input type="hidden" name="intent" value="password" />
      <div className="form-grid">
        {input('current_password', 'Current password', 'current-password')}
        {input('new_password', 'New password', 'new-password', `At least ${minLength} characters.`)}
        {input('new_password_again', 'New password again', 'new-password')}
      </div>
      <p className="muted small">Changing your password signs you out everywhere else; this browser stays signed in.</p>
      <div className="form-actions">
        <button type="submit" className="button button--primary" disabled={busy}>
          {busy ? 'Changing…' : 'Change password'}
        </button>
        <FormMessages answer={mine} fields={FIELDS} testId="account-password" />
      </div>
    </Form>
  );
}
