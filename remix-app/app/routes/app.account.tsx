/**
 * `/app/account`: personal settings of the signed-in user — name, password, two-factor
 * authentication (`/auth/two-factor`), and the sessions they are signed in with (ending all but this
 * one). Everyone has this page, whatever their role; the API
 * calls (`/auth/me`, `/auth/password`, `/auth/sessions`) act on the caller only.
 */
import { data, useNavigation } from 'react-router';
import type { Route } from './+types/app.account';
import { NameForm } from '../components/account/NameForm';
import { PasswordForm } from '../components/account/PasswordForm';
import { SessionList, type SessionRow } from '../components/account/SessionList';
import { TwoFactorSection, type TwoFactorStatus } from '../components/account/TwoFactorSection';
import { ErrorPage } from '../components/ErrorPage';
import { accountAnswer, fieldProblem, type AccountAnswer } from '../lib/account';
import { requireApi } from '../lib/api.server';
import { accountCaller, confirmTwoFactor, startTwoFactor } from '../lib/account-actions.server';
import '../components/admin/admin.css';
import '../components/account/account.css';
import { readForm } from '../lib/forms.server';

interface Me {
  user: { id: string; email: string; firstname: string; lastname: string; role: string };
}

/** The API's rule for new passwords (the API checks it; the form says it up front). */
const MIN_PASSWORD_LENGTH = 8;

export function meta() {
  return [{ title: 'Personal settings · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [me, sessions, twoFactor] = await Promise.all([
    api.get<Me>('/auth/me'),
    api.get<{ data: SessionRow[] }>('/auth/sessions'),
    api.get<TwoFactorStatus>('/auth/two-factor'),
  ]);
  return { user: me.user, sessions: sessions.data, twoFactor };
}

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const text = (name: string) => String(form.get(name) ?? '');
  const call = accountCaller(api);
  let out: AccountAnswer;
  const intent = text('intent');
  if (intent === 'name') {
    const res = await call('PATCH', '/auth/me', { firstname: text('firstname'), lastname: text('lastname') });
    out = accountAnswer('name', res, 'Saved.');
  } else if (intent === 'password') {
    if (text('new_password') !== text('new_password_again')) {
      out = fieldProblem('password', 'new_password_again', 'The two new passwords are not the same.');
    } else {
      const res = await call('POST', '/auth/password', { current_password: text('current_password'), new_password: text('new_password') });
      out = accountAnswer('password', res, 'Password changed. Your other sessions were signed out.');
    }
  } else if (intent === 'two-factor-start') {
    out = await startTwoFactor(call, 'Scan the key with your app.');
  } else if (intent === 'two-factor-confirm') {
    out = await confirmTwoFactor(call, { code: text('code'), secret: text('secret'), otpauth_uri: text('otpauth_uri') });
  } else if (intent === 'two-factor-disable') {
    const second = form.has('recovery_code') ? { recovery_code: text('recovery_code') } : { code: text('code') };
    const res = await call('POST', '/auth/two-factor/disable', { current_password: text('current_password'), ...second });
    out = accountAnswer('two-factor', res, 'Two-factor authentication is off.');
  } else {
    const res = await call('DELETE', '/auth/sessions/others');
    const ended = (res.body as { ended?: number } | null)?.ended ?? 0;
    out = accountAnswer('sessions', res, ended === 1 ? 'One other session was signed out.' : `${ended} other sessions were signed out.`);
  }
  return data(out, { status: out.ok ? 200 : 422 });
}

export default function Account({ loaderData, actionData }: Route.ComponentProps) {
  const { user, sessions, twoFactor } = loaderData;
  const navigation = useNavigation();
  const pending = navigation.state !== 'idle' && navigation.formMethod === 'POST' ? String(navigation.formData?.get('intent') ?? '') : '';
  const twoFactorBusy = pending.startsWith('two-factor');
  return (
    <main className="page page--narrow admin-page">
      <header className="page-header">
        <div>
          <h1>Personal settings</h1>
          <p className="page-header__desc muted">
            Your name, your password, two-factor authentication and where you are signed in. Only you see and change these.
          </p>
        </div>
      </header>

      <section className="section" aria-labelledby="account-name">
        <h2 id="account-name">Name</h2>
        <NameForm firstname={user.firstname} lastname={user.lastname} email={user.email} answer={actionData} busy={pending === 'name'} />
      </section>

      <section className="section" aria-labelledby="account-password">
        <h2 id="account-password">Password</h2>
        <PasswordForm answer={actionData} busy={pending === 'password'} minLength={MIN_PASSWORD_LENGTH} />
      </section>

      <section className="section" aria-labelledby="account-two-factor">
        <h2 id="account-two-factor">Two-factor authentication</h2>
        <p className="section__lead">
          With an authenticator app (such as Google Authenticator, 1Password or Aegis), signing in asks for a 6-digit code from your phone after the password,
          so a stolen password alone is not enough.
        </p>
        <TwoFactorSection status={twoFactor} answer={actionData} busy={twoFactorBusy} />
      </section>

      <section className="section" aria-labelledby="account-sessions">
        <h2 id="account-sessions">Sessions</h2>
        <p className="section__lead">
          Each browser you signed in with has a session; it lasts 14 days unless you sign out. If you see one you do not recognise, sign out the others and
          change your password.
        </p>
        <SessionList sessions={sessions} answer={actionData} busy={pending === 'sessions'} />
      </section>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
