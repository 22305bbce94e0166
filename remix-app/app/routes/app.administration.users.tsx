/**
 * `/app/administration/users`: everyone in the organization with their status, role and groups;
 * invite, resend, revoke, change the role, deactivate and reactivate. Listing needs View Users, every
 * change Manage Users; the API answers each call and its message (a taken seat, the last admin…) is
 * shown next to the row.
 */
import type { ApiSchema } from '@cairn/client';
import { useEffect, useRef } from 'react';
import { data, Link, useFetcher } from 'react-router';
import type { Route } from './+types/app.administration.users';
import { AdminHeader } from '../components/admin/AdminNav';
import { answer, field, fields, jsonapi, listPath, loadViewer, pageOf, relatedIds, type ActionAnswer, type ListDoc } from '../components/admin/admin.server';
import { ConfirmButton, formatDate, Pill, RowError } from '../components/admin/ui';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import type { ApiAnswer } from '../lib/types';
import '../components/admin/admin.css';
import { readForm } from '../lib/forms.server';

type UserAttributes = ApiSchema<'User'>['attributes'];
type GroupAttributes = Pick<ApiSchema<'UserGroup'>['attributes'], 'name' | 'built_in_behavior'>;

export function meta() {
  return [{ title: 'Users · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const page = pageOf(request);
  const [viewer, users, groups] = await Promise.all([
    loadViewer(api),
    api.get<ListDoc<UserAttributes>>(listPath('/users', page)),
    api.get<ListDoc<GroupAttributes>>(listPath('/user_groups')),
  ]);
  const groupNames = Object.fromEntries(groups.data.map((g) => [g.id, g.attributes.name]));
  return {
    viewer,
    page,
    total: users.meta?.total ?? users.data.length,
    users: users.data.map((u) => ({ id: u.id, ...u.attributes, groups: relatedIds(u, 'user_groups') })),
    groups: groups.data.filter((g) => !g.attributes.built_in_behavior).map((g) => ({ id: g.id, name: g.attributes.name })),
    groupNames,
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const intent = field(form, 'intent');
  const id = field(form, 'id');
  const path = `/users/${encodeURIComponent(id)}`;
  let out: ActionAnswer<unknown>;
  switch (intent) {
    case 'invite': {
      const res = await api.call<ApiAnswer<'/users/invite', 'post', 201>>('POST', '/users/invite', {
        body: {
          email: field(form, 'email'),
          role: field(form, 'role') || 'viewer',
          user_group_ids: fields(form, 'group'),
          ...(field(form, 'firstname') ? { firstname: field(form, 'firstname') } : {}),
        },
      });
      const mail = res.ok ? res.body.meta?.mail : undefined;
      out = answer(res, intent, undefined, {
        message: res.ok
          ? mail?.sent
            ? `Invitation sent to ${res.body.data.attributes.email}.`
            : `${res.body.data.attributes.email} is invited, but the e-mail was not sent${mail?.reason ? ` (${mail.reason})` : ''}. Resend it later.`
          : undefined,
      });
      break;
    }
    case 'resend': {
      const res = await api.call('POST', `/users/invite/${encodeURIComponent(id)}`);
      out = answer(res, intent, id, { message: 'A new invitation link was issued.' });
      break;
    }
    case 'revoke':
      out = answer(await api.call('DELETE', `/users/invite/${encodeURIComponent(id)}`), intent, id, { message: 'Invitation revoked.' });
      break;
    case 'role':
      out = answer(await api.call('PATCH', path, { jsonapi: true, body: jsonapi('users', { role: field(form, 'role') }, id) }), intent, id, {
        message: 'Role changed.',
      });
      break;
    case 'deactivate':
      out = answer(await api.call('POST', `${path}/deactivate`), intent, id, { message: 'Deactivated: the user is signed out and cannot sign in.' });
      break;
    case 'reset-two-factor':
      // An admin's session only (D65): the user's authenticator app goes, their sessions end.
      out = answer(await api.call('POST', `/auth/users/${encodeURIComponent(id)}/two-factor/reset`), intent, id, {
        message: 'Two-factor authentication reset: the user is signed out and sets up an app again.',
      });
      break;
    case 'activate':
      out = answer(await api.call('POST', `${path}/activate`, { body: { role: field(form, 'role') || 'viewer' } }), intent, id, {
        message: `Reactivated as ${field(form, 'role') || 'viewer'}.`,
      });
      break;
    default:
      out = { ok: false, intent, error: `Unknown action "${intent}".` };
  }
  return data(out, { status: out.ok ? 200 : 422 });
}

type UserView = Route.ComponentProps['loaderData']['users'][number];

const STATUS_TONE = { active: 'ok', invited: 'info', deactivated: 'bad' } as const;

function UserRow({
  user,
  canManage,
  isSelf,
  isAdmin,
  groupNames,
}: {
  user: UserView;
  canManage: boolean;
  isSelf: boolean;
  isAdmin: boolean;
  groupNames: Record<string, string>;
}) {
  const fetcher = useFetcher<ActionAnswer<unknown>>();
  const busy = fetcher.state !== 'idle';
  const result = fetcher.data;
  const name = `${user.firstname} ${user.lastname}`.trim();
  return (
    <tr data-testid={`user-${user.email}`} data-status={user.status}>
      <td>
        <div className="cell-main">{name || user.email}</div>
        {name ? <div className="cell-sub">{user.email}</div> : null}
      </td>
      <td>
        <Pill tone={STATUS_TONE[user.status]} testId="user-status">
          {user.status}
        </Pill>
      </td>
      <td data-testid="user-role">
        {user.role}
        {user.otp_app_enabled ? (
          <>
            {' '}
            <span className="pill pill--ok" title="Two-factor authentication is on" data-testid="user-2fa">
              2FA
            </span>
          </>
        ) : null}
      </td>
      <td className="cell-sub">
        {[...new Set(user.groups)]
          .map((g) => groupNames[g])
          .filter(Boolean)
          .join(', ') || '—'}
      </td>
      <td className="cell-sub">
        {user.status === 'invited'
          ? `Invited ${formatDate(user.invitation_created_at)}`
          : user.status === 'deactivated'
            ? `Deactivated ${formatDate(user.deactivated_at)}`
            : `Since ${formatDate(user.created_at)}`}
      </td>
      <td className="cell-actions">
        {canManage ? (
          <fetcher.Form method="post" className="row-actions">
            <input type="hidden" name="id" value={user.id} />
            {user.status === 'invited' ? (
              <>
                <button type="submit" name="intent" value="resend" className="button button--small" disabled={busy}>
                  Resend
                </button>
                <ConfirmButton label="Revoke" confirmLabel="Revoke" question="Remove this invitation?" value="revoke" disabled={busy} />
              </>
            ) : null}
            {user.status === 'active' && !isSelf ? (
              <>
                <select name="role" defaultValue={user.role} className="select-small" aria-label={`Role of ${user.email}`}>
                  <option value="viewer">viewer</option>
                  <option value="analyst">analyst</option>
                  <option value="admin">admin</option>
                </select>
                <button type="submit" name="intent" value="role" className="button button--small" disabled={busy}>
                  Change role
                </button>
                <ConfirmButton label="Deactivate" confirmLabel="Deactivate" question="Sign out and block this user?" value="deactivate" disabled={busy} />
                {user.otp_app_enabled && isAdmin ? (
                  <ConfirmButton
                    label="Reset 2FA"
                    confirmLabel="Reset"
                    question="Remove their authenticator app and sign them out?"
                    value="reset-two-factor"
                    disabled={busy}
                  />
                ) : null}
              </>
            ) : null}
            {user.status === 'deactivated' ? (
              <>
                <select
                  name="role"
                  defaultValue={user.role === 'analyst' ? 'analyst' : 'viewer'}
                  className="select-small"
                  aria-label={`Reactivate ${user.email} as`}
                >
                  <option value="viewer">as viewer</option>
                  <option value="analyst">as analyst</option>
                </select>
                <button type="submit" name="intent" value="activate" className="button button--small" disabled={busy}>
                  Reactivate
                </button>
              </>
            ) : null}
            {isSelf ? <span className="cell-sub">You</span> : null}
          </fetcher.Form>
        ) : null}
        {result?.ok === false ? <RowError message={result.error} /> : null}
        {result?.ok && result.message && !busy ? (
          <p className="row-ok" role="status" data-testid="user-row-ok">
            {result.message}
          </p>
        ) : null}
      </td>
    </tr>
  );
}

function InviteForm({ groups }: { groups: { id: string; name: string }[] }) {
  const fetcher = useFetcher<ActionAnswer<unknown>>();
  const form = useRef<HTMLFormElement>(null);
  const result = fetcher.data;
  const busy = fetcher.state !== 'idle';
  // After a successful invitation the form is emptied for the next one.
  useEffect(() => {
    if (fetcher.state === 'idle' && result?.ok) form.current?.reset();
  }, [fetcher.state, result]);
  return (
    <fetcher.Form method="post" className="card" ref={form} aria-label="Invite a user">
      <h3 className="card__title">Invite a user</h3>
      <div className="form-grid">
        <label className="field">
          <span className="field__label">E-mail</span>
          <input name="email" type="email" required maxLength={254} data-testid="invite-email" />
        </label>
        <label className="field">
          <span className="field__label">First name (optional)</span>
          <input name="firstname" maxLength={100} />
        </label>
        <label className="field">
          <span className="field__label">Role</span>
          <select name="role" defaultValue="viewer" data-testid="invite-role">
            <option value="viewer">Viewer: reads dashboards shared with them</option>
            <option value="analyst">Analyst: builds reports and dashboards</option>
            <option value="admin">Admin: administers the organization</option>
          </select>
        </label>
      </div>
      {groups.length ? (
        <fieldset className="fieldset" style={{ marginTop: 14 }}>
          <legend>Groups</legend>
          <div className="check-grid">
            {groups.map((g) => (
              <label key={g.id} className="check">
                <input type="checkbox" name="group" value={g.id} /> {g.name}
              </label>
            ))}
          </div>
        </fieldset>
      ) : null}
      <div className="form-actions">
        <button type="submit" name="intent" value="invite" className="button button--primary" disabled={busy} data-testid="invite-submit">
          {busy ? 'Inviting…' : 'Send invitation'}
        </button>
        {result?.ok && result.message ? (
          <span className="row-ok" role="status" data-testid="invite-result">
            {result.message}
          </span>
        ) : null}
      </div>
      {result?.ok === false ? <RowError message={result.error} /> : null}
      <p className="muted small">Analysts and admins need a free analyst seat; the invitation link works once and for 14 days.</p>
    </fetcher.Form>
  );
}

export default function Users({ loaderData }: Route.ComponentProps) {
  const { viewer, users, groups, groupNames, page, total } = loaderData;
  const canManage = viewer.permissions.includes('manage_users');
  const pages = Math.max(1, Math.ceil(total / 200));
  return (
    <main className="page admin-page">
      <AdminHeader
        title="Users"
        viewer={viewer}
        lead="People of the organization, their role and their status. Deactivated users cannot sign in and take no seat."
      />
      {canManage ? <InviteForm groups={groups} /> : null}
      <section className="section" aria-labelledby="people">
        <h2 id="people">{total === 1 ? '1 user' : `${total} users`}</h2>
        <div className="data-table-wrap">
          <table className="data-table" data-testid="users-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Status</th>
                <th>Role</th>
                <th>Groups</th>
                <th>Since</th>
                <th className="cell-actions">Actions</th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <UserRow key={u.id} user={u} canManage={canManage} isSelf={u.id === viewer.userId} isAdmin={viewer.role === 'admin'} groupNames={groupNames} />
              ))}
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
        <p className="muted small">
          Group memberships are edited on the <Link to="/app/administration/groups">User groups</Link> page.
        </p>
      </section>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
