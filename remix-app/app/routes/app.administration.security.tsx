/**
 * `/app/administration/security`: organization-wide account security (ARCHITECTURE D65) — whether
 * everyone must use two-factor authentication, and how many active users have none yet. Admins only
 * (`GET`/`PUT /auth/organization/security`; the API refuses anyone else). Resetting one user's
 * two-factor authentication is on the Users page; the audit log has its own page.
 */
import { data, Form, Link, useNavigation } from 'react-router';
import type { Route } from './+types/app.administration.security';
import { AdminHeader } from '../components/admin/AdminNav';
import { answer, checked, loadViewer, type ActionAnswer } from '../components/admin/admin.server';
import { Pill, RowError } from '../components/admin/ui';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import '../components/admin/admin.css';
import { readForm } from '../lib/forms.server';

interface Security {
  require_two_factor: boolean;
  users_without_two_factor: number;
}

export function meta() {
  return [{ title: 'Security · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [viewer, security] = await Promise.all([loadViewer(api), api.get<Security>('/auth/organization/security')]);
  return { viewer, security };
}

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const on = checked(form, 'require_two_factor');
  const res = await api.call<Security>('PUT', '/auth/organization/security', { body: { require_two_factor: on } });
  const out: ActionAnswer = answer(res, 'save', undefined, {
    message: on ? 'Two-factor authentication is now required.' : 'Two-factor authentication is no longer required.',
  });
  return data(out, { status: res.ok ? 200 : res.problem.status >= 500 ? 503 : res.problem.status });
}

export default function SecuritySettings({ loaderData, actionData }: Route.ComponentProps) {
  const { viewer, security } = loaderData;
  const navigation = useNavigation();
  const saving = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  return (
    <main className="page admin-page">
      <AdminHeader title="Security" viewer={viewer} lead="Account security rules for everyone in the organization." />
      <section className="section" aria-labelledby="two-factor">
        <h2 id="two-factor">Two-factor authentication</h2>
        <p className="section__lead">
          When required, everyone who signs in with a password must use an authenticator app. Someone without one is taken to its setup right after their
          password, and can use nothing else in Cairn until it is done; sessions that were already open are held the same way. Sign-ins through single sign-on
          are left to your identity provider, and API keys are not affected. To turn it on, set up two-factor authentication for your own account first (
          <Link to="/app/account">Personal settings</Link>).
        </p>
        <Form method="post" className="card" aria-label="Two-factor authentication rule">
          <p data-testid="security-status">
            {security.require_two_factor ? <Pill tone="ok">Required</Pill> : <Pill>Not required</Pill>}{' '}
            <span className="muted" data-testid="security-without">
              {security.users_without_two_factor === 1 ? '1 active user has' : `${security.users_without_two_factor} active users have`} no two-factor
              authentication yet.
            </span>
          </p>
          <label className="check">
            <input type="checkbox" name="require_two_factor" defaultChecked={security.require_two_factor} data-testid="security-require-two-factor" />
            <span>Require two-factor authentication for everyone in the organization</span>
          </label>
          <p className="muted small">
            If someone loses their phone and their recovery codes, reset their two-factor authentication on the{' '}
            <Link to="/app/administration/users">Users</Link> page: their sessions end and, while this rule is on, they set up a new app at their next sign-in.
            Every change here and every reset is written to the <Link to="/app/administration/audit-log">audit log</Link>.
          </p>
          <div className="form-actions">
            <button type="submit" className="button button--primary" disabled={saving} data-testid="security-save">
              {saving ? 'Saving…' : 'Save'}
            </button>
            {actionData?.ok ? (
              <span className="row-ok" role="status" data-testid="security-saved">
                {actionData.message}
              </span>
            ) : null}
          </div>
          <RowError message={actionData && !actionData.ok ? actionData.error : null} />
        </Form>
      </section>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
