/**
 * `/app/administration/audit-log`: the organization's audit log for admins (ARCHITECTURE D66): sign-ins
 * and failed sign-ins, two-factor and password changes, ended sessions, API keys, single sign-on and
 * every write through the API or the app. Filtered by action, person and dates (a GET form, so a view
 * can be bookmarked), newest first, 50 to a page (`GET /auth/audit-log`).
 */
import { Form, Link } from 'react-router';
import type { Route } from './+types/app.administration.audit-log';
import { AdminHeader } from '../components/admin/AdminNav';
import { listPath, loadViewer, type ListDoc } from '../components/admin/admin.server';
import { formatDateTime, Pill, RowError } from '../components/admin/ui';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import '../components/admin/admin.css';

interface Entry {
  id: string;
  created_at: string;
  action: string;
  resource_type: string;
  resource_id: string | null;
  actor: { type: 'user' | 'api_key' | 'system' | 'cli'; id: string | null; name: string | null; email: string | null };
  details: Record<string, unknown>;
}

/** The security events first, then the verbs every write uses. */
const ACTIONS: [string, string][] = [
  ['sign_in', 'Signed in'],
  ['sign_in_failed', 'Failed sign-in'],
  ['enable_two_factor', '2FA turned on'],
  ['disable_two_factor', '2FA turned off'],
  ['reset_two_factor', '2FA reset by an admin'],
  ['change_password', 'Password changed'],
  ['reset_password', 'Password reset by link'],
  ['end_other_sessions', 'Other sessions signed out'],
  ['update_security_settings', 'Security settings changed'],
  ['configure_sso', 'Single sign-on configured'],
  ['remove_sso', 'Single sign-on removed'],
  ['create', 'Created'],
  ['update', 'Changed'],
  ['delete', 'Deleted'],
  ['invite', 'Invited'],
  ['deactivate', 'Deactivated'],
  ['activate', 'Reactivated'],
];
const ACTION_LABEL = Object.fromEntries(ACTIONS);
const FILTERS = ['action', 'actor', 'from', 'to'] as const;
const SECURITY = new Set(ACTIONS.slice(0, 11).map(([a]) => a));

export function meta() {
  return [{ title: 'Audit log · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const url = new URL(request.url);
  const filters = Object.fromEntries(FILTERS.map((f) => [f, url.searchParams.get(f) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  const query = new URLSearchParams();
  for (const f of FILTERS) if (filters[f]) query.set(f, filters[f]);
  const before = url.searchParams.get('before');
  if (before) query.set('before', before);
  const [viewer, people, log] = await Promise.all([
    loadViewer(api),
    api.get<ListDoc<{ email: string; firstname: string; lastname: string }>>(listPath('/users')),
    api.call<{ data: Entry[]; meta: { next_before: string | null } }>('GET', `/auth/audit-log?${query}`),
  ]);
  return {
    viewer,
    filters,
    paged: Boolean(before),
    people: people.data.map((u) => ({
      id: u.id,
      label: [u.attributes.firstname, u.attributes.lastname].filter(Boolean).join(' ') || u.attributes.email,
      email: u.attributes.email,
    })),
    entries: log.ok ? log.body.data : [],
    next: log.ok ? log.body.meta.next_before : null,
    error: log.ok ? null : log.problem.message,
  };
}

/** What an entry's details say, in a line (names of changed attributes, the reason of a failed sign-in…). */
function detailText(e: Entry): string {
  const d = e.details;
  const parts: string[] = [];
  if (typeof d.reason === 'string') parts.push(`reason: ${d.reason.replace(/_/g, ' ')}`);
  if (typeof d.method === 'string') parts.push(`with ${d.method}`);
  if (typeof d.email === 'string') parts.push(d.email);
  if (typeof d.address === 'string') parts.push(`from ${d.address}`);
  if (typeof d.require_two_factor === 'boolean') parts.push(d.require_two_factor ? 'two-factor required' : 'two-factor not required');
  if (typeof d.count === 'number') parts.push(`${d.count} ended`);
  if (typeof d.sessions_ended === 'number') parts.push(`${d.sessions_ended} session${d.sessions_ended === 1 ? '' : 's'} ended`);
  if (Array.isArray(d.attributes)) parts.push(d.attributes.join(', '));
  if (typeof d.name === 'string') parts.push(d.name);
  return parts.join(' · ');
}

export default function AuditLog({ loaderData }: Route.ComponentProps) {
  const { viewer, filters, entries, next, paged, people, error } = loaderData;
  const keep = new URLSearchParams(Object.entries(filters).filter(([, v]) => v));
  return (
    <main className="page admin-page">
      <AdminHeader title="Audit log" viewer={viewer} lead="Who did what in the organization, newest first." />
      <Form method="get" className="card audit-filters" aria-label="Filter the audit log" data-testid="audit-filters">
        <div className="form-grid">
          <label className="field">
            <span className="field__label">Action</span>
            <select name="action" defaultValue={filters.action} data-testid="audit-filter-action">
              <option value="">All actions</option>
              {ACTIONS.map(([a, label]) => (
                <option key={a} value={a}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span className="field__label">Person</span>
            <select name="actor" defaultValue={filters.actor} data-testid="audit-filter-actor">
              <option value="">Anyone</option>
              {people.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label === p.email ? p.email : `${p.label} (${p.email})`}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span className="field__label">From (UTC)</span>
            <input type="date" name="from" defaultValue={filters.from} data-testid="audit-filter-from" />
          </label>
          <label className="field">
            <span className="field__label">To (UTC, inclusive)</span>
            <input type="date" name="to" defaultValue={filters.to} data-testid="audit-filter-to" />
          </label>
        </div>
        <div className="form-actions">
          <button type="submit" className="button button--primary" data-testid="audit-filter-apply">
            Filter
          </button>
          <Link to="/app/administration/audit-log" className="button button--ghost">
            Clear
          </Link>
        </div>
      </Form>
      <RowError message={error} />
      <div className="card">
        <table className="data-table" data-testid="audit-log">
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>Action</th>
              <th>What</th>
              <th>Details</th>
            </tr>
          </thead>
          <tbody>
            {entries.length === 0 ? (
              <tr>
                <td colSpan={5} className="muted" data-testid="audit-empty">
                  No entries match.
                </td>
              </tr>
            ) : (
              entries.map((e) => (
                <tr key={e.id} data-testid="audit-entry" data-action={e.action}>
                  <td className="cell-sub">{formatDateTime(e.created_at)}</td>
                  <td>
                    <div className="cell-main">
                      {e.actor.name ?? (e.actor.type === 'system' ? 'Cairn' : e.actor.type === 'cli' ? 'Operator CLI' : (e.actor.id ?? '—'))}
                    </div>
                    <div className="cell-sub">
                      {e.actor.type === 'api_key' ? 'API key' : e.actor.type === 'user' ? (e.actor.email ?? 'user') : e.actor.type}
                    </div>
                  </td>
                  <td>
                    {SECURITY.has(e.action) ? (
                      <Pill tone={e.action === 'sign_in_failed' || e.action === 'reset_two_factor' ? 'warn' : 'info'}>{ACTION_LABEL[e.action]}</Pill>
                    ) : (
                      (ACTION_LABEL[e.action] ?? e.action)
                    )}
                  </td>
                  <td className="cell-sub">
                    {e.resource_type.replace(/_/g, ' ')}
                    {e.resource_id ? (
                      <>
                        {' '}
                        <code>{e.resource_id}</code>
                      </>
                    ) : null}
                  </td>
                  <td className="cell-sub" data-testid="audit-details">
                    {detailText(e)}
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
        <div className="form-actions">
          {paged ? (
            <Link to={`?${keep}`} className="button button--small" data-testid="audit-newest">
              Newest
            </Link>
          ) : null}
          {next ? (
            <Link to={`?${new URLSearchParams([...keep, ['before', next]])}`} className="button button--small" data-testid="audit-older">
              Older entries
            </Link>
          ) : null}
        </div>
      </div>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
