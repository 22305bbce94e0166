import { Link } from 'react-router';
import type { Route } from './+types/app.index';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import type { DashboardAttributes, ListDocument } from '../lib/types';

export function meta() {
  return [{ title: 'Dashboards · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const doc = await requireApi(request, context).get<ListDocument<DashboardAttributes>>('/dashboards');
  const dashboards = (doc.data ?? []).map((d) => {
    const reports = d.relationships?.reports?.data;
    return {
      id: d.id,
      name: d.attributes.name,
      description: d.attributes.description ?? null,
      reportCount: Array.isArray(reports) ? reports.length : (d.attributes.layout?.length ?? 0),
      updatedAt: d.attributes.updated_at ?? null,
      locked: Boolean(d.attributes.is_locked),
    };
  });
  return { dashboards };
}

function formatDate(iso: string | null): string | null {
  if (!iso) return null;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  return d.toLocaleDateString('en', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
}

export default function DashboardList({ loaderData }: Route.ComponentProps) {
  const { dashboards } = loaderData;
  return (
    <main className="page">
      <header className="page-header">
        <div>
          <p className="eyebrow">Your organization</p>
          <h1>Dashboards</h1>
        </div>
        <p className="muted">{dashboards.length === 1 ? '1 dashboard' : `${dashboards.length} dashboards`}</p>
      </header>
      {dashboards.length === 0 ? (
        <section className="empty-state" data-testid="dashboards-empty">
          <div className="empty-state__art" aria-hidden="true">▦</div>
          <h2>No dashboards yet</h2>
          <p>Dashboards that you create or that are shared with you appear here. Create one through the API or ask an analyst to share theirs.</p>
          <Link to="/api/v2024-06-01" className="button">Read the API docs</Link>
        </section>
      ) : (
        <ul className="dashboard-list" data-testid="dashboard-list">
          {dashboards.map((d) => (
            <li key={d.id}>
              <Link to={`/app/dashboards/${encodeURIComponent(d.id)}`} className="dashboard-card">
                <div className="dashboard-card__thumb" aria-hidden="true">
                  <span /><span /><span /><span />
                </div>
                <div className="dashboard-card__body">
                  <h2 className="dashboard-card__title">{d.name}</h2>
                  {d.description ? <p className="dashboard-card__desc">{d.description}</p> : null}
                  <p className="dashboard-card__meta">
                    <span>{d.reportCount === 1 ? '1 report' : `${d.reportCount} reports`}</span>
                    {formatDate(d.updatedAt) ? <span>Updated {formatDate(d.updatedAt)}</span> : null}
                    {d.locked ? <span className="badge">Locked</span> : null}
                  </p>
                </div>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Try again' }} />;
}
