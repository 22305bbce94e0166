import { data } from 'react-router';
import type { Route } from './+types/app.administration.organization';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import { loadSession } from '../lib/session-info.server';

export function meta() {
  return [{ title: 'Organization · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const session = await loadSession(requireApi(request, context));
  // The role comes from the API's session answer; the page itself only shows what that answer holds.
  if (session.user.role !== 'admin') {
    throw data({ code: 'forbidden', message: 'Only administrators of the organization can open its settings.' }, { status: 403 });
  }
  return { organization: session.organization };
}

export default function OrganizationSettings({ loaderData }: Route.ComponentProps) {
  const { organization } = loaderData;
  return (
    <main className="page page--narrow">
      <header className="page-header">
        <div>
          <p className="eyebrow">Administration</p>
          <h1>Organization</h1>
        </div>
      </header>
      <section className="card">
        <dl className="facts">
          <div>
            <dt>Name</dt>
            <dd data-testid="organization-name">{organization.name}</dd>
          </div>
          <div>
            <dt>Region</dt>
            <dd>{organization.region.toUpperCase()}</dd>
          </div>
          <div>
            <dt>Id</dt>
            <dd><code>{organization.id}</code></dd>
          </div>
        </dl>
      </section>
      <div className="notice">
        This is a placeholder. Organization settings, including the legal and compliance section, arrive in a later
        issue.
      </div>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
