/**
 * `/app/reset-password/{token}`: where the password reset e-mail leads. The user chooses a new
 * password; the API ends every session of theirs and the link, and the page sends them to sign in.
 * Expired, used and unknown links get the API's explanation and a way to ask for a new one.
 */
import { data, Form, Link, redirect, useNavigation } from 'react-router';
import type { Route } from './+types/app.reset-password.$token';
import { AuthCard } from '../components/AuthCard';
import { FieldErrors } from '../components/editor/Field';
import { accountAnswer, fieldProblem } from '../lib/account';
import { anonymousApi } from '../lib/api.server';
import { unplacedErrors } from '../lib/editor-forms';
import '../components/account/account.css';
import { readForm } from '../lib/forms.server';

interface Reset {
  email: string;
  expires_at: string;
  min_password_length: number;
}

export function meta() {
  return [{ title: 'Choose a new password · Cairn' }, { name: 'robots', content: 'noindex' }];
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const res = await anonymousApi(request, context).call<Reset>('GET', `/auth/password-resets/${encodeURIComponent(params.token)}`);
  if (!res.ok) return { reset: null, problem: res.problem.message };
  return { reset: res.body, problem: null };
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const form = await readForm(request);
  const password = String(form.get('password') ?? '');
  if (password !== String(form.get('password_again') ?? '')) {
    return data(fieldProblem('password', 'password_again', 'The two passwords are not the same.'), { status: 422 });
  }
  const res = await anonymousApi(request, context).raw('POST', `/auth/password-resets/${encodeURIComponent(params.token)}`, { body: { password } });
  if (res.status === 204) return redirect('/app/login?reset=1');
  return data(accountAnswer('password', res, ''), { status: res.status >= 500 ? 503 : res.status });
}

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  const reset = loaderData.reset;
  const errors = actionData && !actionData.ok ? actionData.errors : undefined;
  return (
    <AuthCard>
      {!reset ? (
        <>
          <h1>This link cannot be used</h1>
          <div className="alert alert--error" role="alert" data-testid="reset-problem">
            {loaderData.problem}
          </div>
          <Link to="/app/forgot-password" className="button button--primary button--block">
            Ask for a new link
          </Link>
        </>
      ) : (
        <>
          <h1>Choose a new password</h1>
          <p className="muted">
            For <strong data-testid="reset-email">{reset.email}</strong>. You will be signed out everywhere and sign in again with the new password.
          </p>
          <Form method="post" className="form">
            {errors
              ? unplacedErrors(errors, ['password', 'password_again']).map((m) => (
                  <div key={m} className="alert alert--error" role="alert" data-testid="reset-error">
                    {m}
                  </div>
                ))
              : null}
            <label className="field">
              <span className="field__label">New password</span>
              <input
                name="password"
                type="password"
                required
                minLength={reset.min_password_length}
                maxLength={1024}
                autoComplete="new-password"
                autoFocus
                aria-invalid={Boolean(errors?.password) || undefined}
              />
              <span className="field__hint">At least {reset.min_password_length} characters.</span>
              <FieldErrors name="password" errors={errors} />
            </label>
            <label className="field">
              <span className="field__label">New password again</span>
              <input
                name="password_again"
                type="password"
                required
                minLength={reset.min_password_length}
                maxLength={1024}
                autoComplete="new-password"
                aria-invalid={Boolean(errors?.password_again) || undefined}
              />
              <FieldErrors name="password_again" errors={errors} />
            </label>
            <button type="submit" className="button button--primary button--block" disabled={busy}>
              {busy ? 'Saving…' : 'Set the new password'}
            </button>
            <p className="muted small">The link works once, until {new Date(reset.expires_at).toLocaleTimeString('en', { timeStyle: 'short' })}.</p>
          </Form>
        </>
      )}
    </AuthCard>
  );
}
