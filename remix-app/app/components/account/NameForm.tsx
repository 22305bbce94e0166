/** Personal settings: the user's own first and last name (the header shows them). */
import { Form } from 'react-router';
import { FieldErrors } from '../editor/Field';
import type { AccountAnswer } from '../../lib/account';
import { FormMessages } from './FormMessages';

export function NameForm({
  firstname,
  lastname,
  email,
  answer,
  busy,
}: {
  firstname: string;
  lastname: string;
  email: string;
  answer: AccountAnswer | undefined;
  busy: boolean;
}) {
  const mine = answer?.intent === 'name' ? answer : undefined;
  const errors = mine && !mine.ok ? mine.errors : undefined;
  return (
    <Form method="post" className="card account-form" aria-label="Your name">
      <input type="hidden" name="intent" value="name" />
      <div className="form-grid">
        <label className={`field${errors?.firstname ? ' is-invalid' : ''}`}>
          <span className="field__label">First name</span>
          <input
            name="firstname"
            required
            maxLength={100}
            autoComplete="given-name"
            defaultValue={firstname}
            data-testid="account-firstname"
            aria-invalid={Boolean(errors?.firstname) || undefined}
          />
          <FieldErrors name="firstname" errors={errors} />
        </label>
        <label className={`field${errors?.lastname ? ' is-invalid' : ''}`}>
          <span className="field__label">Last name</span>
          <input
            name="lastname"
            maxLength={100}
            autoComplete="family-name"
            defaultValue={lastname}
            data-testid="account-lastname"
            aria-invalid={Boolean(errors?.lastname) || undefined}
          />
          <FieldErrors name="lastname" errors={errors} />
        </label>
        <label className="field">
          <span className="field__label">E-mail</span>
          <input type="email" value={email} readOnly data-testid="account-email" />
        </label>
      </div>
      <p className="muted small">Your e-mail address is your sign-in name and cannot be changed here.</p>
      <div className="form-actions">
        <button type="submit" className="button button--primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save name'}
        </button>
        <FormMessages answer={mine} fields={['firstname', 'lastname']} testId="account-name" />
      </div>
    </Form>
  );
}
