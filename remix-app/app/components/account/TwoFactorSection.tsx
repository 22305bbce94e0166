/**
 * Personal settings: two-factor authentication with an authenticator app — off (set up), being set
 * up (the key and the first code), or on (recovery codes left, turn off).
 */
import { Form } from 'react-router';
import type { AccountAnswer } from '../../lib/account';
import { FormMessages } from './FormMessages';
import { RecoveryCodes } from './RecoveryCodes';
import { TwoFactorDisable } from './TwoFactorDisable';
import { TwoFactorEnrol } from './TwoFactorEnrol';

export interface TwoFactorStatus {
  enabled: boolean;
  pending: boolean;
  recovery_codes_left: number;
}

const FIELDS = ['code', 'recovery_code', 'current_password'];

export function TwoFactorSection({ status, answer, busy }: { status: TwoFactorStatus; answer: AccountAnswer | undefined; busy: boolean }) {
  const mine = answer?.intent === 'two-factor' ? answer : undefined;
  const errors = mine && !mine.ok ? mine.errors : undefined;
  if (!status.enabled && mine?.enrolment) {
    return (
      <>
        <TwoFactorEnrol enrolment={mine.enrolment} errors={errors} busy={busy} />
        <FormMessages answer={mine.ok ? undefined : mine} fields={FIELDS} testId="two-factor" />
      </>
    );
  }
  if (!status.enabled) {
    return (
      <Form method="post" className="card account-form" aria-label="Two-factor authentication">
        <input type="hidden" name="intent" value="two-factor-start" />
        <p data-testid="two-factor-status">
          <span className="pill">Off</span> Signing in needs your password only.
          {mine?.ok ? (
            <>
              {' '}
              <span className="row-ok" role="status" data-testid="two-factor-saved">
                {mine.message}
              </span>
            </>
          ) : null}
        </p>
        <div className="form-actions">
          <button type="submit" className="button button--primary" disabled={busy} data-testid="two-factor-start">
            {busy ? 'Starting…' : 'Set up an authenticator app'}
          </button>
          <FormMessages answer={mine?.ok ? undefined : mine} fields={FIELDS} testId="two-factor" />
        </div>
      </Form>
    );
  }
  return (
    <div className="card">
      {mine?.recovery_codes ? <RecoveryCodes codes={mine.recovery_codes} /> : null}
      <p data-testid="two-factor-status">
        <span className="pill pill--ok">On</span> Signing in needs your password and a code of your authenticator app.{' '}
        <span className="muted" data-testid="two-factor-left">
          {status.recovery_codes_left === 1 ? '1 recovery code left.' : `${status.recovery_codes_left} recovery codes left.`}
        </span>
      </p>
      <TwoFactorDisable errors={errors} busy={busy} />
      <FormMessages answer={mine?.ok ? undefined : mine} fields={FIELDS} testId="two-factor" />
    </div>
  );
}
