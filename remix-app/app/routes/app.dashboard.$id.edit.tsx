/**
 * Dashboard edit mode (`/app/dashboards/{id}/edit`): the frame around the layout, filters and SQL snippets
 * tabs. Only people whose grants include Manage Dashboards get here (viewers see the refusal); a locked
 * dashboard shows a notice and no edit controls until it is unlocked.
 */
import { Form, Link, NavLink, Outlet, useNavigation } from 'react-router';
import type { Route } from './+types/app.dashboard.$id.edit';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import { EDIT_REFUSED, listAll, requireGrant, write } from '../lib/editor.server';
import type { DashboardAttributes, FilterAttributes, ReportAttributes, SingleDocument } from '../lib/types';
import { FILTER_PREFIX, TZ_PARAM } from '../lib/filters';
import type { Tile } from '../lib/editor-layout';
import '../components/editor/editor.css';
import { readForm } from '../lib/forms.server';

export function meta({ data: d }: Route.MetaArgs) {
  return [{ title: d ? `Edit ${d.dashboard.name} · Cairn` : 'Edit dashboard · Cairn' }];
}

const relIds = (r: { relationships?: Record<string, { data?: unknown }> }, name: string): string[] => {
  const d = r.relationships?.[name]?.data;
  return Array.isArray(d) ? d.map((x: { id: string }) => x.id) : [];
};

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  await requireGrant(api, 'manage_dashboards', EDIT_REFUSED);
  const doc = await api.get<SingleDocument<DashboardAttributes & { floating_enabled?: boolean }>>(
    `/dashboards/${encodeURIComponent(params.id)}?include=reports,filters`,
  );
  const datasources = await listAll<{ name: string; database_type: string }>(api, '/datasources').catch(() => []);
  const a = doc.data.attributes;
  const included = doc.included ?? [];
  const reports = included
    .filter((r) => r.type === 'reports')
    .map((r) => {
      const ra = r.attributes as unknown as ReportAttributes;
      return { id: r.id, name: ra.name, chartConfiguration: ra.chart_configuration ?? null };
    });
  const filterOrder = relIds(doc.data, 'filters');
  const filters = included
    .filter((r) => r.type === 'filters')
    .map((r) => ({
      id: r.id,
      attributes: r.attributes as unknown as FilterAttributes & Record<string, unknown>,
      relationships: r.relationships ?? {},
      meta: r.meta ?? null,
    }))
    .sort((x, y) => filterOrder.indexOf(x.id) - filterOrder.indexOf(y.id));
  const url = new URL(request.url);
  const kept = new URLSearchParams();
  for (const [k, v] of url.searchParams) if (k.startsWith(FILTER_PREFIX) || k === TZ_PARAM) kept.append(k, v);
  const search = kept.toString() ? `?${kept}` : '';
  return {
    dashboard: {
      id: doc.data.id,
      name: a.name,
      locked: Boolean(a.is_locked),
      layout: (Array.isArray(a.layout) ? a.layout : []) as Tile[],
      floating: Boolean(a.floating_enabled),
      filterIds: filterOrder,
    },
    reports,
    filters,
    datasources: datasources.map((d) => ({ id: d.id, name: d.attributes.name, database_type: d.attributes.database_type })),
    search,
  };
}

export type EditData = Awaited<ReturnType<typeof loader>>;

export async function action({ request, context, params }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  if (form.get('intent') !== 'unlock') return { errors: [{ detail: 'Unknown action.' }] };
  const res = await write(api, 'DELETE', `/dashboards/${encodeURIComponent(params.id)}/lock`);
  return res.ok ? { ok: true } : { errors: res.errors };
}

export default function DashboardEdit({ loaderData, actionData }: Route.ComponentProps) {
  const { dashboard, search } = loaderData;
  const navigation = useNavigation();
  const base = `/app/dashboards/${encodeURIComponent(dashboard.id)}/edit`;
  const back = `/app/dashboards/${encodeURIComponent(dashboard.id)}${search}`;
  const addReport = `/app/reports/new?dashboard=${encodeURIComponent(dashboard.id)}${search ? `&${search.slice(1)}` : ''}`;
  const unlockError = actionData && 'errors' in actionData ? actionData.errors?.[0]?.detail : null;
  return (
    <main className="page page--editor" data-testid="dashboard-edit">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/app/">Dashboards</Link> <span aria-hidden="true">/</span> <Link to={back}>{dashboard.name}</Link> <span aria-hidden="true">/</span>{' '}
        <span>Edit</span>
      </nav>
      <header className="page-header">
        <div>
          <p className="eyebrow">Edit mode</p>
          <h1>{dashboard.name}</h1>
        </div>
        <div className="page-header__meta">
          {!dashboard.locked ? (
            <Link to={addReport} className="button button--primary" data-testid="add-report">
              + Add report
            </Link>
          ) : null}
          <Link to={back} className="button" data-testid="edit-done">
            Done
          </Link>
        </div>
      </header>
      {dashboard.locked ? (
        <section className="notice" role="status" data-testid="locked-notice">
          <p>
            <strong>This dashboard is locked.</strong> Its layout, reports and filters cannot be changed until someone unlocks it.
          </p>
          <Form method="post">
            <input type="hidden" name="intent" value="unlock" />
            <button type="submit" className="button button--small" disabled={navigation.state !== 'idle'} data-testid="unlock">
              Unlock to edit
            </button>
          </Form>
          {unlockError ? (
            <p className="field__error" role="alert">
              {unlockError}
            </p>
          ) : null}
        </section>
      ) : (
        <>
          <nav className="edit-tabs" aria-label="Edit mode">
            <NavLink to={`${base}${search}`} end>
              Layout
            </NavLink>
            <NavLink to={`${base}/filters${search}`} data-testid="tab-filters">
              Filters
            </NavLink>
            <NavLink to={`${base}/snippets${search}`} data-testid="tab-snippets">
              SQL snippets
            </NavLink>
          </nav>
          <Outlet />
        </>
      )}
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
