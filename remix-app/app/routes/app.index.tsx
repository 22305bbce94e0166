/**
 * The dashboard list: recently opened dashboards (kept per user in this browser), dashboard groups in
 * their order, then "Other dashboards"; a search box over dashboards and reports (report matches come
 * from the loader for `?q=`, each links to its dashboard with the tile maximized); and for
 * analysts and admins New dashboard, Restore from backup, Duplicate and Delete (the API refuses them to
 * viewers anyway). Group management (new group, edit, delete, order, a dashboard's groups) lives in
 * components/groups.
 */
import { useEffect, useMemo, useState } from 'react';
import { data, Form, Link, redirect, useNavigation, useRouteLoaderData, useSearchParams } from 'react-router';
import type { Route } from './+types/app.index';
import { RestoreBackup, RestoreErrors } from '../components/dashboard-settings/RestoreBackup';
import { ErrorPage } from '../components/ErrorPage';
import { DashboardGroupsButton } from '../components/groups/DashboardGroupsButton';
import { GroupHeader } from '../components/groups/GroupHeader';
import { NewGroupButton } from '../components/groups/NewGroupButton';
import { requireApi } from '../lib/api.server';
import { readBackupText } from '../lib/dashboard-backup';
import { errorItems } from '../lib/editor.server';
import type { DashboardAttributes, ListDocument } from '../lib/types';
import type { GroupSummary } from '../lib/dashboard-groups';
import '../styles/dashboard.css';
import '../components/dashboard/home.css';
import { readForm } from '../lib/forms.server';
import { readRecent, type RecentDashboard } from '../lib/recent-dashboards';

/** A report whose name or description matches the search, with the dashboard it is on. */
interface ReportMatch {
  id: string;
  name: string;
  dashboardId: string;
  dashboardName: string;
}
const REPORT_MATCHES = 20;
const REPORT_PAGES = 5;

/** Reports the user may see whose name or description contains `q` (the API lists them 200 a page). */
async function findReports(api: ReturnType<typeof requireApi>, q: string, dashboardNames: Map<string, string>): Promise<ReportMatch[]> {
  const needle = q.toLowerCase();
  const found: ReportMatch[] = [];
  for (let page = 1; page <= REPORT_PAGES && found.length < REPORT_MATCHES; page++) {
    const r = await api.call<ListDocument<{ name: string; description?: string | null }>>('GET', `/reports?page[size]=200&page[number]=${page}`);
    if (!r.ok) break;
    const items = r.body.data ?? [];
    for (const rep of items) {
      const dashboardId = (rep.relationships?.dashboard?.data as { id?: string } | null | undefined)?.id;
      if (!dashboardId) continue;
      const text = `${rep.attributes.name}\n${rep.attributes.description ?? ''}`.toLowerCase();
      if (text.includes(needle)) found.push({ id: rep.id, name: rep.attributes.name, dashboardId, dashboardName: dashboardNames.get(dashboardId) ?? '' });
    }
    if (items.length < 200) break;
  }
  return found.slice(0, REPORT_MATCHES);
}

export function meta() {
  return [{ title: 'Dashboards · Cairn' }];
}

interface Card {
  id: string;
  name: string;
  description: string | null;
  reportCount: number;
  updatedAt: string | null;
  locked: boolean;
  /** The app's address of the dashboard's thumbnail image; null until one is drawn. */
  thumbnail: string | null;
}

/** The app's own address for the image `thumbnail_image_url` names (the API's address needs a key). */
function thumbnailAddress(id: string, apiUrl: string | null | undefined): string | null {
  if (!apiUrl) return null;
  const v = new URL(apiUrl, 'https://api.invalid').searchParams.get('v');
  return `/app/dashboards/${encodeURIComponent(id)}/thumbnail${v ? `?v=${encodeURIComponent(v)}` : ''}`;
}
type Group = GroupSummary;

const DASHBOARD_PAGES = 25;

/** Every dashboard the user may see, not only the first page (the API lists them 200 a page). */
async function allDashboards(api: ReturnType<typeof requireApi>): Promise<ListDocument<DashboardAttributes>> {
  const first = await api.get<ListDocument<DashboardAttributes>>('/dashboards?page[size]=200&page[number]=1');
  const data = [...(first.data ?? [])];
  for (let page = 2, last = data.length; page <= DASHBOARD_PAGES && last === 200; page++) {
    const next = await api.get<ListDocument<DashboardAttributes>>(`/dashboards?page[size]=200&page[number]=${page}`);
    last = next.data?.length ?? 0;
    data.push(...(next.data ?? []));
  }
  return { ...first, data };
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [list, groups] = await Promise.all([
    allDashboards(api),
    api.call<ListDocument<{ name: string; description?: string | null; personal?: boolean }>>('GET', '/dashboard_groups?include=dashboards&page[size]=200'),
  ]);
  const dashboards: Card[] = (list.data ?? []).map((d) => {
    const reports = d.relationships?.reports?.data;
    return {
      id: d.id,
      name: d.attributes.name,
      description: d.attributes.description ?? null,
      reportCount: Array.isArray(reports) ? reports.length : (d.attributes.layout?.length ?? 0),
      updatedAt: d.attributes.updated_at ?? null,
      locked: Boolean(d.attributes.is_locked),
      thumbnail: thumbnailAddress(d.id, d.attributes.thumbnail_image_url),
    };
  });
  const visible = new Set(dashboards.map((d) => d.id));
  const groupList: Group[] = groups.ok
    ? (groups.body.data ?? []).map((g) => {
        const rel = g.relationships?.dashboards?.data;
        return {
          id: g.id,
          name: g.attributes.name,
          description: g.attributes.description ?? null,
          personal: g.attributes.personal === true,
          dashboardIds: (Array.isArray(rel) ? rel.map((r) => r.id) : []).filter((id) => visible.has(id)),
        };
      })
    : [];
  const q = (new URL(request.url).searchParams.get('q') ?? '').trim().slice(0, 200);
  const reports = q ? await findReports(api, q, new Map(dashboards.map((d) => [d.id, d.name]))) : [];
  return { dashboards, groups: groupList, total: typeof list.meta?.total === 'number' ? list.meta.total : dashboards.length, reports, reportQuery: q };
}

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const intent = String(form.get('intent') ?? '');
  const id = encodeURIComponent(String(form.get('id') ?? ''));
  if (intent === 'create') {
    const name = String(form.get('name') ?? '').trim();
    if (!name) return data({ error: 'Give the dashboard a name.' }, { status: 422 });
    const r = await api.call<{ data: { id: string } }>('POST', '/dashboards', { jsonapi: true, body: { data: { type: 'dashboards', attributes: { name } } } });
    if (!r.ok) return data({ error: r.problem.message }, { status: r.problem.status });
    return redirect(`/app/dashboards/${encodeURIComponent(r.body.data.id)}`);
  }
  if (intent === 'restore') {
    const file = form.get('backup');
    if (!file || typeof file === 'string') return data({ restoreErrors: ['Choose a backup file (.json).'] }, { status: 422 });
    const read = readBackupText(await file.text());
    if (!read.ok) return data({ restoreErrors: [read.message] }, { status: 422 });
    const r = await api.raw('POST', '/dashboards/restore', { body: read.backup });
    if (r.status >= 200 && r.status < 300) {
      const created = (r.body as { data?: { id?: string } } | null)?.data?.id;
      return redirect(created ? `/app/dashboards/${encodeURIComponent(created)}` : '/app/');
    }
    if (r.status === 401) throw api.toResponse({ status: 401, code: 'unauthorized', message: '' });
    return data(
      { restoreErrors: errorItems(r.status, r.body).map((e) => e.detail || e.title || e.code || 'Refused.') },
      { status: r.status >= 500 ? 503 : r.status },
    );
  }
  if (intent === 'duplicate') {
    const r = await api.call<{ data: { id: string; attributes: { name: string } } }>('POST', `/dashboards/${id}/duplicate`);
    return r.ok ? { done: `Created “${r.body.data.attributes.name}”.` } : data({ error: r.problem.message }, { status: r.problem.status });
  }
  if (intent === 'delete') {
    const r = await api.call('DELETE', `/dashboards/${id}`);
    return r.ok ? { done: 'The dashboard was deleted.' } : data({ error: r.problem.message }, { status: r.problem.status });
  }
  return data({ error: 'Unknown action.' }, { status: 400 });
}

function formatDate(iso: string | null): string | null {
  if (!iso) return null;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  return d.toLocaleDateString('en', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
}

function DashboardCard({ d, canManage, groups }: { d: Card; canManage: boolean; groups: Group[] }) {
  return (
    <li className="dashboard-tile">
      <Link to={`/app/dashboards/${encodeURIComponent(d.id)}`} className="dashboard-card" data-testid="dashboard-card">
        {d.thumbnail ? (
          <div className="dashboard-card__thumb dashboard-card__thumb--image" aria-hidden="true">
            <img src={d.thumbnail} alt="" loading="lazy" decoding="async" data-testid="dashboard-card-thumbnail" />
          </div>
        ) : (
          <div className="dashboard-card__thumb" aria-hidden="true">
            <span />
            <span />
            <span />
            <span />
          </div>
        )}
        <div className="dashboard-card__body">
          <h3 className="dashboard-card__title">{d.name}</h3>
          {d.description ? <p className="dashboard-card__desc">{d.description}</p> : null}
          <p className="dashboard-card__meta">
            <span>{d.reportCount === 1 ? '1 report' : `${d.reportCount} reports`}</span>
            {formatDate(d.updatedAt) ? <span>Updated {formatDate(d.updatedAt)}</span> : null}
            {d.locked ? <span className="badge">Locked</span> : null}
          </p>
        </div>
      </Link>
      {canManage ? (
        <Form
          method="post"
          className="dashboard-tile__actions"
          onSubmit={(e) => {
            const intent = ((e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null)?.value;
            if (intent === 'delete' && !window.confirm(`Delete “${d.name}” and all its reports? This cannot be undone.`)) e.preventDefault();
          }}
        >
          <input type="hidden" name="id" value={d.id} />
          <button type="submit" name="intent" value="duplicate" data-testid="dashboard-card-duplicate" aria-label={`Duplicate ${d.name}`}>
            Duplicate
          </button>
          {!d.locked ? (
            <button type="submit" name="intent" value="delete" className="is-danger" data-testid="dashboard-card-delete" aria-label={`Delete ${d.name}`}>
              Delete
            </button>
          ) : null}
        </Form>
      ) : null}
      <DashboardGroupsButton dashboard={d} groups={groups} canManage={canManage} />
    </li>
  );
}

/** The dashboards this user opened last in this browser that the API still lists for them. */
function RecentDashboards({ userKey, byId }: { userKey: string; byId: Map<string, Card> }) {
  const [recent, setRecent] = useState<RecentDashboard[]>([]);
  useEffect(() => setRecent(userKey ? readRecent(userKey) : []), [userKey]);
  const shown = recent.filter((r) => byId.has(r.id));
  if (!shown.length) return null;
  return (
    <section className="recent-dashboards" aria-labelledby="recent-title" data-testid="recent-dashboards">
      <h2 className="dashboard-group__title" id="recent-title">
        Recently opened
      </h2>
      <ul className="recent-dashboards__list">
        {shown.map((r) => (
          <li key={r.id}>
            <Link to={`/app/dashboards/${encodeURIComponent(r.id)}`} data-testid="recent-dashboard">
              {byId.get(r.id)!.name}
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

function ReportMatches({ reports, query, pending }: { reports: ReportMatch[]; query: string; pending: boolean }) {
  return (
    <section className="report-matches" aria-labelledby="report-matches-title" data-testid="report-matches" aria-busy={pending}>
      <h2 className="dashboard-group__title" id="report-matches-title">
        Reports <span className="dashboard-group__count">{reports.length}</span>
      </h2>
      {reports.length ? (
        <ul className="report-matches__list">
          {reports.map((r) => (
            <li key={r.id}>
              <Link to={`/app/dashboards/${encodeURIComponent(r.dashboardId)}?tile=${encodeURIComponent(r.id)}`} data-testid="report-match">
                {r.name}
              </Link>
              {r.dashboardName ? <span className="muted"> on {r.dashboardName}</span> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{pending ? 'Searching the reports…' : `No report matches “${query}”.`}</p>
      )}
    </section>
  );
}

export default function DashboardList({ loaderData, actionData }: Route.ComponentProps) {
  const { dashboards, groups, reports, reportQuery } = loaderData;
  const layout = useRouteLoaderData('routes/app.layout') as { user?: { role?: string; email?: string } } | undefined;
  const canManage = layout?.user?.role === 'admin' || layout?.user?.role === 'analyst';
  const navigation = useNavigation();
  const [params, setParams] = useSearchParams();
  const [query, setQuery] = useState(() => params.get('q') ?? '');
  // The reports are searched by the loader: the address follows the box a moment after typing stops.
  useEffect(() => {
    const wanted = query.trim();
    if (wanted === (params.get('q') ?? '')) return;
    const t = setTimeout(() => setParams(wanted ? { q: wanted } : {}, { replace: true, preventScrollReset: true }), 300);
    return () => clearTimeout(t);
  }, [query, params, setParams]);
  const [creating, setCreating] = useState(false);
  const q = query.trim().toLowerCase();
  const matches = (d: Card) => !q || d.name.toLowerCase().includes(q) || (d.description ?? '').toLowerCase().includes(q);
  const byId = useMemo(() => new Map(dashboards.map((d) => [d.id, d])), [dashboards]);
  const grouped = new Set(groups.flatMap((g) => g.dashboardIds));
  const sections = [
    ...groups.map((g) => ({
      id: g.id,
      name: g.name,
      description: g.description,
      group: g as Group | undefined,
      items: g.dashboardIds.map((id) => byId.get(id)!).filter(matches),
    })),
    {
      id: 'other',
      name: groups.length ? 'Other dashboards' : 'All dashboards',
      description: null,
      group: undefined,
      items: dashboards.filter((d) => !grouped.has(d.id)).filter(matches),
    },
  ].filter((s) => s.items.length > 0 || (!q && s.id !== 'other'));
  const found = new Set(sections.flatMap((s) => s.items.map((d) => d.id))).size;
  const reportsPending = Boolean(q) && reportQuery.toLowerCase() !== q;
  const restoreErrors = actionData && 'restoreErrors' in actionData ? actionData.restoreErrors : [];
  const message =
    actionData && 'error' in actionData ? { error: String(actionData.error) } : actionData && 'done' in actionData ? { done: String(actionData.done) } : null;
  return (
    <main className="page">
      <header className="page-header">
        <div>
          <p className="eyebrow">Your organization</p>
          <h1>Dashboards</h1>
        </div>
        <p className="muted">{dashboards.length === 1 ? '1 dashboard' : `${dashboards.length} dashboards`}</p>
      </header>
      <div className="list-toolbar">
        <input
          type="search"
          className="list-toolbar__search"
          placeholder="Search dashboards and reports"
          aria-label="Search dashboards and reports"
          value={query}
          onChange={(e) => setQuery(e.currentTarget.value)}
          data-testid="dashboard-search"
        />
        {canManage ? (
          creating ? (
            <Form method="post" onSubmit={() => setCreating(false)}>
              <input type="hidden" name="intent" value="create" />
              <input name="name" placeholder="Dashboard name" aria-label="Dashboard name" required maxLength={200} autoFocus data-testid="new-dashboard-name" />
              <button type="submit" className="button button--primary button--small" disabled={navigation.state !== 'idle'} data-testid="new-dashboard-create">
                Create
              </button>
              <button type="button" className="button button--ghost button--small" onClick={() => setCreating(false)}>
                Cancel
              </button>
            </Form>
          ) : (
            <button type="button" className="button button--primary button--small" onClick={() => setCreating(true)} data-testid="new-dashboard">
              + New dashboard
            </button>
          )
        ) : null}
        {layout?.user ? <NewGroupButton canManage={canManage} /> : null}
        {canManage ? <RestoreBackup errors={restoreErrors} /> : null}
      </div>
      <RestoreErrors errors={restoreErrors} />
      {message ? (
        <p className={`alert ${'error' in message ? 'alert--error' : 'alert--ok'}`} role="status">
          {'error' in message ? message.error : message.done}
        </p>
      ) : null}
      {dashboards.length === 0 ? (
        <section className="empty-state" data-testid="dashboards-empty">
          <div className="empty-state__art" aria-hidden="true">
            ▦
          </div>
          <h2>No dashboards yet</h2>
          <p>
            {canManage ? 'Create one with “New dashboard”, or through the API.' : 'Dashboards shared with you appear here. Ask an analyst to share theirs.'}
          </p>
          <Link to="/api/v2024-06-01" className="button">
            Read the API docs
          </Link>
        </section>
      ) : (
        <>
          {q ? null : <RecentDashboards userKey={layout?.user?.email ?? ''} byId={byId} />}
          {q ? <ReportMatches reports={reports} query={query.trim()} pending={reportsPending} /> : null}
          {q && found === 0 ? (
            <p className="muted" data-testid="dashboards-no-match">
              No dashboard matches “{query.trim()}”.
            </p>
          ) : (
            <div data-testid="dashboard-list">
              {sections.map((s) => (
                <section key={s.id} className="dashboard-group" aria-labelledby={`group-${s.id}`} data-testid="dashboard-group">
                  {s.group ? (
                    <GroupHeader group={s.group} count={s.items.length} order={groups.map((g) => g.id)} canManage={canManage} />
                  ) : (
                    <h2 className="dashboard-group__title" id={`group-${s.id}`}>
                      {s.name} <span className="dashboard-group__count">{s.items.length}</span>
                    </h2>
                  )}
                  {s.description ? <p className="dashboard-group__desc">{s.description}</p> : null}
                  {s.items.length ? (
                    <ul className="dashboard-list">
                      {s.items.map((d) => (
                        <DashboardCard key={d.id} d={d} canManage={canManage} groups={groups} />
                      ))}
                    </ul>
                  ) : (
                    <p className="muted">No dashboards in this group that you may open.</p>
                  )}
                </section>
              ))}
            </div>
          )}
        </>
      )}
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Try again' }} />;
}
