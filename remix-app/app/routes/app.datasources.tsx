/** `/app/datasources`: the organization's datasources (View Datasources); admins add and change them. */
import type { ApiSchema } from '@cairn/client';
import { Link } from 'react-router';
import type { Route } from './+types/app.datasources';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import { DATABASE_LABELS } from '../lib/editor-datasources';
import { can, listAll, requireGrant } from '../lib/editor.server';
import '../components/editor/editor.css';

export function meta() {
  return [{ title: 'Datasources · Cairn' }];
}

type Attributes = ApiSchema<'Datasource'>['attributes'];

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const session = await requireGrant(api, 'view_datasources', 'Your role cannot see the organization’s datasources.');
  const list = await listAll<Attributes>(api, '/datasources');
  return {
    canManage: can(session, 'manage_datasources'),
    datasources: list.map((d) => ({ id: d.id, ...d.attributes })),
  };
}

export default function Datasources({ loaderData }: Route.ComponentProps) {
  const { datasources, canManage } = loaderData;
  return (
    <main className="page" data-testid="datasources-page">
      <header className="page-header">
        <div>
          <p className="eyebrow">Your organization</p>
          <h1>Datasources</h1>
        </div>
        <div className="page-header__meta">
          {canManage ? (
            <Link to="/app/datasources/new" className="button button--primary" data-testid="add-datasource">
              + Add datasource
            </Link>
          ) : null}
        </div>
      </header>
      {!canManage ? <p className="muted">Administrators add and change datasources; you can browse their schemas.</p> : null}
      <ul className="resource-list" data-testid="datasource-list">
        {datasources.map((d) => (
          <li key={d.id} className="resource-row" data-testid={`datasource-row-${d.name}`}>
            <div className="resource-row__main">
              <div className="resource-row__title">
                <Link to={`/app/datasources/${encodeURIComponent(d.id)}`}>{d.name}</Link>
                {d.is_sample ? (
                  <span className="badge" style={{ marginLeft: 8 }}>
                    Sample data
                  </span>
                ) : null}
                {!d.enabled ? (
                  <span className="badge badge--error" style={{ marginLeft: 8 }}>
                    Disabled
                  </span>
                ) : null}
              </div>
              <div className="resource-row__meta">
                {DATABASE_LABELS[d.database_type] ?? d.database_type}
                {d.host ? ` · ${d.host}${d.port ? `:${d.port}` : ''}` : ''}
                {d.database ? ` · ${d.database}` : ''}
                {d.connection_mode !== 'direct' ? ` · via ${d.connection_mode === 'ssh_tunnel' ? 'SSH tunnel' : 'agent'}` : ''}
                {d.server_version ? ` · ${d.server_version}` : ''}
              </div>
            </div>
            <div className="resource-row__actions">
              <Link to={`/app/datasources/${encodeURIComponent(d.id)}`} className="button button--small">
                {canManage && !d.is_sample ? 'Edit' : 'Open'}
              </Link>
            </div>
          </li>
        ))}
      </ul>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
