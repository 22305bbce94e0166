/**
 * `/app/invitation/{token}`: where the invitation e-mail leads. The invitee sets their name and a
 * password; the API activates the account and answers a session, so they land signed in.
 */
import { data, Form, Link, redirect, useNavigation } from 'react-router';
import type { Route } from './+types/app.invitation.$token';
import { AuthCard } from '../components/AuthCard';
import { anonymousApi } from '../lib/api.server';
import { sessionCookie } from '../lib/session.server';
import { readForm } from '../lib/forms.server';

interface Invitation {
  email: string;
  firstname: string;
  lastname: string;
  role: 'viewer' | 'analyst' | 'admin';
  organization: { name: string; region: string };
  invited_by: string | null;
  expires_at: string;
  min_password_length: number;
}

interface SessionAnswer {
  token: string;
  expires_at?: string | null;
}

export function meta() {
  return [{ title: 'Accept your invitation · Cairn' }, { name: 'robots', content: 'noindex' }];
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const res = await anonymousApi(request, context).call<Invitation>('GET', `/auth/invitations/${encodeURIComponent(params.token)}`);
  if (!res.ok) return { invitation: null, problem: res.problem.message, status: res.problem.status };
  return { invitation: res.body, problem: null, status: 200 };
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const form = await readForm(request);
  const firstname = String(form.get('firstname') ?? '');
  const lastname = String(form.get('lastname') ?? '');
  const password = String(form.get('password') ?? '');
  if (password !== String(form.get('password_again') ?? '')) {
    return data({ error: 'The two passwords are not the same.', field: 'password_again', firstname, lastname }, { status: 422 });
  }
  const res = await anonymousApi(request, context).call<SessionAnswer>('POST', `/auth/invitations/${encodeURIComponent(params.token)}`, {
    body: { firstname, lastname, password },
  });
  if (!res.ok) {
    return data({ error: res.problem.message, field: null, firstname, lastname }, { status: res.problem.status >= 500 ? 503 : res.problem.status });
  }
  return redirect('/app/', { headers: { 'Set-Cookie': sessionCookie(request, res.body.token, res.body.expires_at) } });
}

const ROLE_TEXT = {
  viewer: 'a viewer: you will see the dashboards shared with you',
  analyst: 'an analyst: you will build reports and dashboards',
  admin: 'an admin: you will administer the organization',
} as const;

export default function AcceptInvitation({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  const inv = loaderData.invitation;
  return (
    <AuthCard>
      {!inv ? (
        <>
          <h1>This invitation cannot be used</h1>
          <div className="alert alert--error" role="alert" data-testid="invitation-problem">
            {loaderData.problem}
          </div>
          <p className="muted">If you already accepted it, sign in with your e-mail address and password.</p>
          <Link to="/app/login" className="button button--primary button--block">
            Go to sign-in
          </Link>
        </>
      ) : (
        <>
          <h1>Join {inv.organization.name}</h1>
          <p className="muted">
            {inv.invited_by ? `${inv.invited_by} invited you` : 'You are invited'} as {ROLE_TEXT[inv.role]}. Choose your name and a password to finish.
          </p>
          <Form method="post" className="form">
            {actionData?.error ? (
              <div className="alert alert--error" role="alert" data-testid="invitation-error">
                {actionData.error}
              </div>
            ) : null}
            <label className="field">
              <span className="field__label">E-mail</span>
              <input type="email" value={inv.email} readOnly autoComplete="username" data-testid="invitation-email" />
            </label>
            <div className="field-row">
              <label className="field">
                <span className="field__label">First name</span>
                <input name="firstname" required maxLength={100} autoComplete="given-name" defaultValue={actionData?.firstname ?? inv.firstname} autoFocus />
              </label>
              <label className="field">
                <span className="field__label">Last name</span>
                <input name="lastname" maxLength={100} autoComplete="family-name" defaultValue={actionData?.lastname ?? inv.lastname} />
              </label>
            </div>
            <label className="field">
              <span className="field__label">Password</span>
              <input name="password" type="password" required minLength={inv.min_password_length} maxLength={1024} autoComplete="new-password" />
              <span className="field__hint">At least {inv.min_password_length} characters. A long passphrase you use nowhere else is best.</span>
            </label>
            <label className="field">
              <span className="field__label">Password again</span>
              <input
                name="password_again"
                type="password"
                required
                minLength={inv.min_password_length}
                maxLength={1024}
                autoComplete="new-password"
                aria-invalid={actionData?.field === 'password_again' || undefined}
              />
            </label>
            <button type="submit" className="button button--primary button--block" disabled={busy}>
              {busy ? 'Activating…' : 'Activate my account'}
            </button>
            <p className="muted small">The link works once and until {new Date(inv.expires_at).toLocaleDateString('en', { dateStyle: 'medium' })}.</p>
          </Form>
        </>
      )}
    </AuthCard>
  );
}
