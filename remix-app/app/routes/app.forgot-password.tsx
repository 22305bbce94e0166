/**
 * `/app/forgot-password`: "Forgot password?" of the sign-in page. The API answers the same whatever
 * address is typed (so nobody learns who has an account); an active user receives a one-time link.
 */
import { data, Form, Link, useNavigation } from 'react-router';
import type { Route } from './+types/app.forgot-password';
import { AuthCard } from '../components/AuthCard';
import { FieldErrors } from '../components/editor/Field';
import { accountAnswer } from '../lib/account';
import { anonymousApi } from '../lib/api.server';
import { unplacedErrors } from '../lib/editor-forms';
import '../components/account/account.css';
import { readForm } from '../lib/forms.server';
import { readRegionChoice } from '../lib/session.server';

export function meta() {
  return [{ title: 'Forgot password · Cairn' }];
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request);
  const email = String(form.get('email') ?? '').trim();
  // Each region's database knows only its own users (D53): the region chosen at sign-in is asked, and
  // the other one too; each sends a link only to an address it knows, and both answer the same either way.
  const api = anonymousApi(request, context);
  const first = readRegionChoice(request) ?? 'eu';
  const res = await api.raw('POST', '/auth/password-resets', { body: { email }, region: first });
  if (res.status < 300 && context.cloudflare?.env?.API_US) {
    await api.raw('POST', '/auth/password-resets', { body: { email }, region: first === 'us' ? 'eu' : 'us' }).catch(() => undefined);
  }
  const message = (res.body as { message?: string } | null)?.message ?? '';
  const out = accountAnswer('password', res, message);
  return data({ ...out, email }, { status: out.ok ? 200 : res.status >= 500 ? 503 : res.status });
}

export default function ForgotPassword({ actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  const errors = actionData && !actionData.ok ? actionData.errors : undefined;
  return (
    <AuthCard foot={<Link to="/app/login">Back to sign-in</Link>}>
      <h1>Forgot your password?</h1>
      {actionData?.ok ? (
        <>
          <div className="alert alert--success" role="status" data-testid="forgot-sent">
            {actionData.message}
          </div>
          <p className="muted">No e-mail? Check the address and your spam folder, or ask an admin of your organization.</p>
        </>
      ) : (
        <>
          <p className="muted">Type the e-mail address you sign in with. We send a link to choose a new password.</p>
          <Form method="post" className="form">
            {errors
              ? unplacedErrors(errors, ['email']).map((m) => (
                  <div key={m} className="alert alert--error" role="alert" data-testid="forgot-error">
                    {m}
                  </div>
                ))
              : null}
            <label className="field">
              <span className="field__label">E-mail</span>
              <input
                name="email"
                type="email"
                autoComplete="username"
                required
                defaultValue={actionData?.email ?? ''}
                autoFocus
                aria-invalid={Boolean(errors?.email) || undefined}
              />
              <FieldErrors name="email" errors={errors} />
            </label>
            <button type="submit" className="button button--primary button--block" disabled={busy}>
              {busy ? 'Sending…' : 'Send the link'}
            </button>
          </Form>
        </>
      )}
    </AuthCard>
  );
}
