/**
 * `/app/two-factor-setup`: where a session is sent while its organization requires two-factor
 * authentication and the user has none (ARCHITECTURE D65). The API answers nothing else to such a
 * session, so this page stands outside the app's layout: set up an authenticator app (QR code drawn
 * in the page), enter its first code, keep the recovery codes, continue. Anyone else is sent on to the app.
 */
import { data, Form, Link, redirect, useNavigation, type ShouldRevalidateFunctionArgs } from 'react-router';
import type { Route } from './+types/app.two-factor-setup';
import { AuthCard } from '../components/AuthCard';
import { FormMessages } from '../components/account/FormMessages';
import { RecoveryCodes } from '../components/account/RecoveryCodes';
import { TwoFactorEnrol } from '../components/account/TwoFactorEnrol';
import { accountCaller, confirmTwoFactor, startTwoFactor } from '../lib/account-actions.server';
import { requireApi } from '../lib/api.server';
import { loadSession } from '../lib/session-info.server';
import { readForm } from '../lib/forms.server';
import '../components/account/account.css';

export function meta() {
  return [{ title: 'Set up two-factor authentication · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const session = await loadSession(requireApi(request, context));
  if (!session.two_factor_enrolment_required) throw redirect('/app/');
  return { email: session.user.email, organization: session.organization.name };
}

/** After the setup form, the page keeps its answer (the recovery codes, shown once) rather than reload and leave. */
export function shouldRevalidate({ formMethod, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return formMethod === 'POST' ? false : defaultShouldRevalidate;
}

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const text = (name: string) => String(form.get(name) ?? '');
  const call = accountCaller(api);
  const out =
    text('intent') === 'two-factor-start'
      ? await startTwoFactor(call, 'Scan the code with your app.')
      : await confirmTwoFactor(call, { code: text('code'), secret: text('secret'), otpauth_uri: text('otpauth_uri') });
  return data(out, { status: out.ok ? 200 : 422 });
}

export default function TwoFactorSetup({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  const errors = actionData && !actionData.ok ? actionData.errors : undefined;
  return (
    <AuthCard
      foot={
        <Form method="post" action="/app/logout">
          <button type="submit" className="button button--ghost button--small">
            Sign out
          </button>
        </Form>
      }
    >
      <h1>Set up two-factor authentication</h1>
      {actionData?.recovery_codes ? (
        <div data-testid="two-factor-setup-done">
          <RecoveryCodes codes={actionData.recovery_codes} />
          <p>
            <Link to="/app/" className="button button--primary" data-testid="two-factor-setup-continue">
              Continue to Cairn
            </Link>
          </p>
        </div>
      ) : (
        <>
          <p className="muted" data-testid="two-factor-setup-lead">
            <strong>{loaderData.organization}</strong> requires two-factor authentication for everyone. Before you continue as {loaderData.email}, set up an
            authenticator app (such as Google Authenticator, 1Password or Aegis): from now on, signing in asks for its 6-digit code after your password.
          </p>
          {actionData?.enrolment ? (
            <>
              <TwoFactorEnrol enrolment={actionData.enrolment} errors={errors} busy={busy} />
              <FormMessages answer={actionData.ok ? undefined : actionData} fields={['code']} testId="two-factor" />
            </>
          ) : (
            <Form method="post">
              <input type="hidden" name="intent" value="two-factor-start" />
              <button type="submit" className="button button--primary" disabled={busy} data-testid="two-factor-start">
                {busy ? 'Starting…' : 'Set up an authenticator app'}
              </button>
              <FormMessages answer={actionData?.ok ? undefined : actionData} fields={[]} testId="two-factor" />
            </Form>
          )}
        </>
      )}
    </AuthCard>
  );
}
