/**
 * `/app/administration/groups`: user groups (create, rename, describe, members, delete). The two
 * built-in groups keep their members by rule. Listing needs View Users, changes Manage Users.
 */
import type { ApiSchema } from '@cairn/client';
import { useEffect, useRef } from 'react';
import { data, useFetcher } from 'react-router';
import type { Route } from './+types/app.administration.groups';
import { AdminHeader } from '../components/admin/AdminNav';
import { answer, field, fields, jsonapi, listPath, loadViewer, relatedIds, toMany, type ActionAnswer, type ListDoc } from '../components/admin/admin.server';
import { ConfirmButton, RowError } from '../components/admin/ui';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import '../components/admin/admin.css';
import { readForm } from '../lib/forms.server';

type GroupAttributes = ApiSchema<'UserGroup'>['attributes'];
type UserAttributes = ApiSchema<'User'>['attributes'];

export function meta() {
  return [{ title: 'User groups · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [viewer, groups, users] = await Promise.all([
    loadViewer(api),
    api.get<ListDoc<GroupAttributes>>(listPath('/user_groups?include=users')),
    api.get<ListDoc<UserAttributes>>(listPath('/users')),
  ]);
  return {
    viewer,
    groups: groups.data.map((g) => ({ id: g.id, ...g.attributes, members: relatedIds(g, 'users') })),
    users: users.data
      .filter((u) => u.attributes.status !== 'deactivated')
      .map((u) => ({ id: u.id, label: `${u.attributes.firstname} ${u.attributes.lastname}`.trim() || u.attributes.email, email: u.attributes.email })),
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const intent = field(form, 'intent');
  const id = field(form, 'id');
  const description = field(form, 'description');
  let out: ActionAnswer;
  if (intent === 'create') {
    out = answer(
      await api.call('POST', '/user_groups', {
        jsonapi: true,
        body: jsonapi('user_groups', { name: field(form, 'name'), description: description || null }),
      }),
      intent,
      undefined,
      { message: `Group “${field(form, 'name')}” created. Add its members below.` },
    );
  } else if (intent === 'save') {
    out = answer(
      await api.call('PATCH', `/user_groups/${encodeURIComponent(id)}`, {
        jsonapi: true,
        body: jsonapi('user_groups', { name: field(form, 'name'), description: description || null }, id, { users: toMany('users', fields(form, 'member')) }),
      }),
      intent,
      id,
      { message: 'Saved.' },
    );
  } else if (intent === 'delete') {
    out = answer(await api.call('DELETE', `/user_groups/${encodeURIComponent(id)}`), intent, id);
  } else {
    out = { ok: false, intent, error: `Unknown action "${intent}".` };
  }
  return data(out, { status: out.ok ? 200 : 422 });
}

type GroupView = Route.ComponentProps['loaderData']['groups'][number];
type UserView = Route.ComponentProps['loaderData']['users'][number];

const RULE = { all_users: 'Everyone in the organization, by rule.', all_analysts: 'Every analyst and admin, by rule.' } as const;

function GroupCard({ group, users, canManage }: { group: GroupView; users: UserView[]; canManage: boolean }) {
  const fetcher = useFetcher<ActionAnswer>();
  const result = fetcher.data;
  const busy = fetcher.state !== 'idle';
  const builtIn = group.built_in_behavior;
  return (
    <fetcher.Form method="post" className="card" data-testid={`group-${group.name}`} aria-label={`Group ${group.name}`}>
      <input type="hidden" name="id" value={group.id} />
      {builtIn || !canManage ? (
        <>
          <h3 className="card__title">
            {group.name} {builtIn ? <span className="badge">built-in</span> : null}
          </h3>
          {group.description ? <p className="muted small">{group.description}</p> : null}
          <p className="small">{builtIn ? RULE[builtIn] : `${group.members.length} member${group.members.length === 1 ? '' : 's'}.`}</p>
        </>
      ) : (
        <>
          <div className="form-grid">
            <label className="field">
              <span className="field__label">Name</span>
              <input name="name" required maxLength={200} defaultValue={group.name} />
            </label>
            <label className="field">
              <span className="field__label">Description</span>
              <input name="description" maxLength={2000} defaultValue={group.description ?? ''} />
            </label>
          </div>
          <fieldset className="fieldset" style={{ marginTop: 14 }}>
            <legend>Members</legend>
            {users.length ? (
              <div className="check-grid">
                {users.map((u) => (
                  <label key={u.id} className="check">
                    <input type="checkbox" name="member" value={u.id} defaultChecked={group.members.includes(u.id)} />
                    <span>
                      {u.label}
                      {u.label !== u.email ? <small>{u.email}</small> : null}
                    </span>
                  </label>
                ))}
              </div>
            ) : (
              <p className="muted small">No users yet.</p>
            )}
          </fieldset>
          <div className="form-actions">
            <button type="submit" name="intent" value="save" className="button button--primary button--small" disabled={busy}>
              Save
            </button>
            <ConfirmButton
              label="Delete"
              confirmLabel="Delete group"
              question="Dashboards shared with it are no longer shared with its members."
              value="delete"
              disabled={busy}
            />
            {result?.ok && result.message ? (
              <span className="row-ok" role="status">
                {result.message}
              </span>
            ) : null}
          </div>
        </>
      )}
      {result?.ok === false ? <RowError message={result.error} /> : null}
    </fetcher.Form>
  );
}

function CreateGroup() {
  const fetcher = useFetcher<ActionAnswer>();
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (fetcher.state === 'idle' && fetcher.data?.ok) form.current?.reset();
  }, [fetcher.state, fetcher.data]);
  return (
    <fetcher.Form method="post" className="card" ref={form} aria-label="Create a group">
      <h3 className="card__title">New group</h3>
      <div className="form-grid">
        <label className="field">
          <span className="field__label">Name</span>
          <input name="name" required maxLength={200} data-testid="group-name" />
        </label>
        <label className="field">
          <span className="field__label">Description (optional)</span>
          <input name="description" maxLength={2000} />
        </label>
      </div>
      <div className="form-actions">
        <button type="submit" name="intent" value="create" className="button button--primary" disabled={fetcher.state !== 'idle'} data-testid="group-create">
          Create group
        </button>
      </div>
      {fetcher.data?.ok === false ? <RowError message={fetcher.data.error} /> : null}
      {fetcher.data?.ok && fetcher.data.message && fetcher.state === 'idle' ? (
        <p className="row-ok" role="status" data-testid="group-created">
          {fetcher.data.message}
        </p>
      ) : null}
    </fetcher.Form>
  );
}

export default function Groups({ loaderData }: Route.ComponentProps) {
  const { viewer, groups, users } = loaderData;
  const canManage = viewer.permissions.includes('manage_users');
  return (
    <main className="page admin-page">
      <AdminHeader title="User groups" viewer={viewer} lead="Groups decide which dashboards people see when a dashboard is shared with groups." />
      {canManage ? <CreateGroup /> : null}
      <section className="section" aria-labelledby="groups">
        <h2 id="groups">{groups.length === 1 ? '1 group' : `${groups.length} groups`}</h2>
        {groups.map((g) => (
          <GroupCard key={g.id} group={g} users={users} canManage={canManage} />
        ))}
      </section>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
