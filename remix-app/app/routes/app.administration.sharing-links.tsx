/**
 * `/app/administration/sharing-links`: every sharing link the viewer may manage, across dashboards,
 * with its protections, so public access can be reviewed in one place. Needs Manage Dashboards.
 */
import type { ResourceObject } from '@cairn/core';
import { Link } from 'react-router';
import type { Route } from './+types/app.administration.sharing-links';
import { AdminHeader } from '../components/admin/AdminNav';
import { listPath, loadViewer, pageOf, relatedIds, type ListDoc } from '../components/admin/admin.server';
import { CopyButton, formatDate, Pill } from '../components/admin/ui';
import { optionWords, type LinkAttributes } from '../components/sharing/LinkOptions';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import '../components/admin/admin.css';

export function meta() {
  return [{ title: 'Sharing links · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const page = pageOf(request);
  const [viewer, links] = await Promise.all([loadViewer(api), api.get<ListDoc<LinkAttributes>>(listPath('/dashboard_sharing_links?include=dashboard', page))]);
  const names = new Map((links.included ?? []).map((r: ResourceObject) => [r.id, String((r.attributes as { name?: string }).name ?? r.id)]));
  return {
    viewer,
    page,
    total: links.meta?.total ?? links.data.length,
    origin: new URL(request.url).origin,
    links: links.data.map((l) => {
      const dashboardId = relatedIds(l, 'dashboard')[0] ?? '';
      return { id: l.id, ...l.attributes, dashboardId, dashboardName: names.get(dashboardId) ?? dashboardId };
    }),
  };
}

export default function SharingLinks({ loaderData }: Route.ComponentProps) {
  const { viewer, links, total, origin, page } = loaderData;
  const pages = Math.max(1, Math.ceil(total / 200));
  return (
    <main className="page admin-page">
      <AdminHeader
        title="Sharing links"
        viewer={viewer}
        lead="Every public link of the dashboards you manage. Anyone with an address can open it, within its protections."
      />
      <div className="data-table-wrap">
        <table className="data-table" data-testid="all-links-table">
          <thead>
            <tr>
              <th>Link</th>
              <th>Dashboard</th>
              <th>Address</th>
              <th>Options</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {links.length ? (
              links.map((l) => {
                const url = `${origin}/s/${l.token}`;
                return (
                  <tr key={l.id}>
                    <td>
                      <Link className="cell-main" to={`/app/dashboards/${encodeURIComponent(l.dashboardId)}/share/links/${encodeURIComponent(l.id)}`}>
                        {l.name}
                      </Link>
                      {l.description ? <div className="cell-sub">{l.description}</div> : null}
                    </td>
                    <td>
                      <Link to={`/app/dashboards/${encodeURIComponent(l.dashboardId)}/share`}>{l.dashboardName}</Link>
                    </td>
                    <td>
                      <div className="copy-field">
                        <code>{url}</code>
                        <CopyButton text={url} />
                      </div>
                    </td>
                    <td>
                      <div className="option-summary">
                        {optionWords(l).map((w) => (
                          <Pill key={w}>{w}</Pill>
                        ))}
                      </div>
                    </td>
                    <td className="cell-sub">{formatDate(l.created_at)}</td>
                  </tr>
                );
              })
            ) : (
              <tr>
                <td colSpan={5} className="empty-row">
                  No sharing links yet. Create one from a dashboard’s Share page.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {pages > 1 ? (
        <p className="form-actions">
          {page > 1 ? (
            <Link className="button button--small" to={`?page=${page - 1}`}>
              Previous
            </Link>
          ) : null}
          <span className="muted small">
            Page {page} of {pages}
          </span>
          {page < pages ? (
            <Link className="button button--small" to={`?page=${page + 1}`}>
              Next
            </Link>
          ) : null}
        </p>
      ) : null}
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
