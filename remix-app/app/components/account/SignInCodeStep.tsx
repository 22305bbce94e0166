/**
 * The second step of signing in with two-factor authentication on: the password was right, and the
 * API answered a short-lived challenge; a code of the authenticator app (or a recovery code) finishes.
 */
import { Form, Link } from 'react-router';
import { unplacedErrors } from '../../lib/editor-forms';
import { CodeField } from './CodeField';

export function SignInCodeStep({
  challenge,
  next,
  errors,
  busy,
}: {
  challenge: string;
  next: string;
  errors: Record<string, string[]> | undefined;
  busy: boolean;
}) {
  // Refusals of no field (too many attempts) above the field.
  const rest = unplacedErrors(errors ?? {}, ['code', 'recovery_code']);
  return (
    <Form method="post" className="form" data-testid="login-code-step">
      <input type="hidden" name="intent" value="code" />
      <input type="hidden" name="challenge" value={challenge} />
      <input type="hidden" name="next" value={next} />
      <p className="muted">Open your authenticator app and enter the code it shows for Cairn.</p>
      {rest.length ? (
        <div className="alert alert--error" role="alert" data-testid="login-error">
          {rest.join(' ')}
        </div>
      ) : null}
      <CodeField errors={errors} testId="login" autoFocus />
      <button type="submit" className="button button--primary button--block" disabled={busy}>
        {busy ? 'Checking…' : 'Verify'}
      </button>
      <p className="small">
        <Link to="/app/login">Start over</Link>
      </p>
    </Form>
  );
}
