import { data, Form, Link, redirect, useNavigation } from 'react-router';
import type { Route } from './+types/app.login';
import { AuthCard } from '../components/AuthCard';
import { SignInCodeStep } from '../components/account/SignInCodeStep';
import { errorsByField, type ApiErrorItem } from '../lib/editor-forms';
import '../components/account/account.css';
import { anonymousApi } from '../lib/api.server';
import { readRegionChoice, regionCookie, safeNext, sessionCookie } from '../lib/session.server';
import { getEnv } from '../lib/env.server';
import { readForm } from '../lib/forms.server';

export function meta() {
  return [{ title: 'Sign in · Cairn' }];
}

/**
 * One sign-in page for both regions (D53): each region's database knows only its own users, so the
 * visitor says where the organization lives (remembered in a cookie); with one region deployed there
 * is nothing to choose. The password goes to that region's API only.
 */
export function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const regions = context.cloudflare?.env?.API_US ? ['eu', 'us'] : ['eu'];
  return {
    next: safeNext(url.searchParams.get('next')),
    reset: url.searchParams.get('reset') === '1',
    regions,
    region: readRegionChoice(request) ?? 'eu',
  };
}

const REGION_LABELS: Record<string, string> = { eu: 'Europe (EU)', us: 'United States (US)' };

/** The session cookie and the region the visitor chose, for the redirect after a sign-in. */
function signedInHeaders(request: Request, token: string, expiresAt: string | null | undefined): Headers {
  const headers = new Headers();
  headers.append('Set-Cookie', sessionCookie(request, token, expiresAt));
  const region = /^(eu|us)_/.exec(token)?.[1];
  if (region) headers.append('Set-Cookie', regionCookie(request, region));
  return headers;
}

interface SignInAnswer {
  token?: string;
  expires_at?: string | null;
  /** With two-factor authentication on, the password step answers a challenge instead of a session. */
  two_factor_required?: boolean;
  challenge?: string;
}

/** What the sign-in form shows after a submission: an error, or the code step (with its errors). */
interface LoginAnswer {
  email: string;
  error?: string;
  challenge?: string;
  codeErrors?: Record<string, string[]>;
}

/** The code step's refusals by field (`code`, `recovery_code`); others (an expired challenge) as a message. */
function codeErrors(body: unknown): Record<string, string[]> {
  const byField = errorsByField((body as { errors?: ApiErrorItem[] } | null)?.errors ?? [{ detail: 'The code could not be checked. Please try again.' }]);
  for (const [field, messages] of Object.entries(byField)) byField[field] = messages.map((m) => (m.startsWith(`${field}: `) ? m.slice(field.length + 2) : m));
  return byField;
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request);
  const email = String(form.get('email') ?? '').trim();
  const password = String(form.get('password') ?? '');
  const next = safeNext(String(form.get('next') ?? ''));
  const api = anonymousApi(request, context);
  if (form.get('intent') === 'sso') {
    // "Continue with single sign-on": the identity provider of the address's domain (ARCHITECTURE D57).
    const started = await api.call<{ redirect_url?: string }>('POST', '/auth/sso/start', { body: { email, next } });
    if (started.ok && typeof started.body?.redirect_url === 'string') return redirect(started.body.redirect_url);
    const message = started.ok ? 'The API did not return where to sign in.' : started.problem.message.replace(/^email: /, '');
    return data<LoginAnswer>(
      { error: message.charAt(0).toUpperCase() + message.slice(1), email },
      { status: started.ok ? 503 : started.problem.status >= 500 ? 503 : started.problem.status },
    );
  }
  if (form.get('intent') === 'code') {
    const challenge = String(form.get('challenge') ?? '');
    const second = form.has('recovery_code') ? { recovery_code: String(form.get('recovery_code')) } : { code: String(form.get('code') ?? '') };
    // The challenge names the region that issued it (`<region>_…`).
    const res = await api.raw('POST', '/auth/sessions/two-factor', { body: { challenge, ...second }, region: /^(eu|us)_/.exec(challenge)?.[1] });
    const body = res.body as SignInAnswer | null;
    if (res.status === 201 && typeof body?.token === 'string') {
      return redirect(next, { headers: signedInHeaders(request, body.token, body.expires_at) });
    }
    const errors = codeErrors(res.body);
    // An expired or used challenge (401) goes back to the password step.
    if (res.status === 401) return data<LoginAnswer>({ error: Object.values(errors).flat().join(' '), email: '' }, { status: 401 });
    return data<LoginAnswer>({ challenge, codeErrors: errors, email: '' }, { status: res.status >= 500 ? 503 : res.status });
  }
  const chosen = String(form.get('region') ?? '');
  const region = chosen === 'us' && getEnv(context).API_US ? 'us' : 'eu';
  const result = await api.call<SignInAnswer>('POST', '/auth/sessions', { body: { email, password }, region });
  if (!result.ok) {
    const status = result.problem.status >= 500 ? 503 : result.problem.status;
    return data<LoginAnswer>({ error: result.problem.message, email }, { status });
  }
  if (result.body?.two_factor_required && typeof result.body.challenge === 'string') {
    return data<LoginAnswer>({ challenge: result.body.challenge, email });
  }
  if (typeof result.body?.token !== 'string') {
    return data<LoginAnswer>({ error: 'The API did not return a session. Please try again.', email }, { status: 503 });
  }
  return redirect(next, { headers: signedInHeaders(request, result.body.token, result.body.expires_at) });
}

export default function Login({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  return (
    <AuthCard foot={<Link to="/">Documentation</Link>}>
      <h1>Sign in</h1>
      {actionData?.challenge ? (
        <SignInCodeStep challenge={actionData.challenge} next={loaderData.next} errors={actionData.codeErrors} busy={busy} />
      ) : (
        <>
          <p className="muted">Dashboards and reports of your organization.</p>
          <Form method="post" className="form" noValidate={false}>
            <input type="hidden" name="next" value={loaderData.next} />
            {loaderData.reset && !actionData?.error ? (
              <div className="alert alert--success" role="status" data-testid="login-reset">
                Your password was changed and every session was signed out. Sign in with the new password.
              </div>
            ) : null}
            {actionData?.error ? (
              <div className="alert alert--error" role="alert" data-testid="login-error">
                {actionData.error}
              </div>
            ) : null}
            <label className="field">
              <span className="field__label">E-mail</span>
              <input name="email" type="email" autoComplete="username" required defaultValue={actionData?.email ?? ''} autoFocus />
            </label>
            <label className="field">
              <span className="field__label">Password</span>
              <input name="password" type="password" autoComplete="current-password" required />
            </label>
            {loaderData.regions.length > 1 ? (
              <label className="field">
                <span className="field__label">Your organization's region</span>
                <select name="region" defaultValue={loaderData.region} data-testid="login-region">
                  {loaderData.regions.map((r) => (
                    <option key={r} value={r}>
                      {REGION_LABELS[r] ?? r}
                    </option>
                  ))}
                </select>
              </label>
            ) : null}
            <button type="submit" name="intent" value="password" className="button button--primary button--block" disabled={busy}>
              {busy ? 'Signing in…' : 'Sign in'}
            </button>
            {/* Needs only the e-mail: the identity provider is found by its domain. */}
            <button type="submit" name="intent" value="sso" formNoValidate className="button button--block" disabled={busy} data-testid="sso-button">
              Continue with single sign-on
            </button>
            <p className="small">
              <Link to="/app/forgot-password" data-testid="forgot-link">
                Forgot password?
              </Link>
            </p>
          </Form>
        </>
      )}
    </AuthCard>
  );
}
