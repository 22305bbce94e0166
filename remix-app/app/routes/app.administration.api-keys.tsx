/**
 * `/app/administration/api-keys`: keys for programs. Create with permissions, each optionally limited
 * to chosen dashboards, datasources or SQL alerts; the secret is shown once, right after creation.
 * Rename a key or change its permissions, disable, enable, delete. Only admins signed in to the app may do any of it (the API answers 403
 * to everyone else, shown as the error page).
 */
import type { ApiSchema } from '@cairn/client';
import { Fragment, useCallback, useEffect, useRef, useState } from 'react';
import { data, useFetcher } from 'react-router';
import { PERMISSION_LABELS, type Grant } from '@cairn/core';
import type { Route } from './+types/app.administration.api-keys';
import { AdminHeader } from '../components/admin/AdminNav';
import { EditKey, type KeyUpdateAnswer } from '../components/admin/api-keys/EditKey';
import { PermissionPicker, type Resources } from '../components/admin/api-keys/PermissionPicker';
import { answer, field, jsonapi, listPath, loadViewer, type ActionAnswer, type ListDoc } from '../components/admin/admin.server';
import { SecretShownOnce } from '../components/admin/SecretShownOnce';
import { ConfirmButton, formatDateTime, Pill, RowError } from '../components/admin/ui';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi, type ApiClient } from '../lib/api.server';
import { grantsFromForm } from '../lib/api-key-grants';
import { write } from '../lib/editor.server';
import { errorsByField } from '../lib/editor-forms';
import '../components/admin/admin.css';
import { readForm } from '../lib/forms.server';

type KeyAttributes = ApiSchema<'ApiKey'>['attributes'];

export function meta() {
  return [{ title: 'API keys · Cairn' }];
}

/** Names of what a key may be limited to; a list the admin cannot read is simply empty. */
async function options(api: ApiClient, path: string): Promise<{ id: string; name: string }[]> {
  const res = await api.call<ListDoc<{ name: string }>>('GET', listPath(path));
  return res.ok ? res.body.data.map((r) => ({ id: r.id, name: r.attributes.name })) : [];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [viewer, keys, dashboards, datasources, alerts] = await Promise.all([
    loadViewer(api),
    api.get<ListDoc<KeyAttributes>>(listPath('/api_keys')),
    options(api, '/dashboards'),
    options(api, '/datasources'),
    options(api, '/sql_alerts'),
  ]);
  return {
    viewer,
    keys: keys.data.map((k) => ({ id: k.id, ...k.attributes })),
    resources: { dashboards, datasources, sql_alerts: alerts } satisfies Resources,
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const intent = field(form, 'intent');
  const id = field(form, 'id');
  if (intent === 'update') {
    const res = await write(
      api,
      'PATCH',
      `/api_keys/${encodeURIComponent(id)}`,
      jsonapi('api_keys', { name: field(form, 'name'), permissions: grantsFromForm(form) }, id),
    );
    const out: KeyUpdateAnswer = res.ok ? { ok: true, intent, target: id } : { ok: false, intent, target: id, errors: errorsByField(res.errors) };
    return data(out, { status: out.ok ? 200 : 422 });
  }
  let out: ActionAnswer<{ name: string; secret: string }>;
  if (intent === 'create') {
    const grants = grantsFromForm(form);
    if (!grants.length) {
      out = { ok: false, intent, error: 'Choose at least one permission.' };
    } else {
      const res = await api.call<{ data: { attributes: KeyAttributes } }>('POST', '/api_keys', {
        jsonapi: true,
        body: jsonapi('api_keys', { name: field(form, 'name'), permissions: grants }),
      });
      out = answer(
        res,
        intent,
        undefined,
        res.ok ? { value: { name: res.body.data.attributes.name, secret: res.body.data.attributes.secret ?? '' } } : undefined,
      );
    }
  } else if (intent === 'enable' || intent === 'disable') {
    out = answer(
      await api.call('PATCH', `/api_keys/${encodeURIComponent(id)}`, {
        jsonapi: true,
        body: jsonapi('api_keys', { enabled: intent === 'enable' }, id),
      }),
      intent,
      id,
      { message: intent === 'enable' ? 'Key enabled: programs can use it again.' : 'Key disabled: programs using it are refused until it is enabled.' },
    );
  } else if (intent === 'delete') {
    out = answer(await api.call('DELETE', `/api_keys/${encodeURIComponent(id)}`), intent, id);
  } else {
    out = { ok: false, intent, error: `Unknown action "${intent}".` };
  }
  return data(out, { status: out.ok ? 200 : 422 });
}

function CreateKey({ resources }: { resources: Resources }) {
  const fetcher = useFetcher<ActionAnswer<{ name: string; secret: string }>>();
  const form = useRef<HTMLFormElement>(null);
  const [formKey, setFormKey] = useState(0);
  const result = fetcher.data;
  const created = result?.ok && result.intent === 'create' ? result.value : undefined;
  useEffect(() => {
    if (fetcher.state === 'idle' && created) setFormKey((k) => k + 1);
  }, [fetcher.state, created]);
  return (
    <div className="card">
      <h3 className="card__title">New API key</h3>
      {created ? (
        <SecretShownOnce
          title={`Key “${created.name}” created.`}
          warning="Copy it now: this is the only time Cairn shows it. It is stored only as a hash."
          value={created.secret}
          hint={
            <>
              Programs send it as <code>Authorization: Api &lt;key&gt;</code>.
            </>
          }
          testIds={{ box: 'new-key', value: 'new-key-secret', copy: 'copy-key' }}
        />
      ) : null}
      <fetcher.Form method="post" ref={form} key={formKey} aria-label="Create an API key">
        <div className="form-grid">
          <label className="field">
            <span className="field__label">Name</span>
            <input name="name" required maxLength={200} placeholder="ETL job, customer portal…" data-testid="key-name" />
          </label>
        </div>
        <fieldset className="fieldset" style={{ marginTop: 14 }}>
          <legend>Permissions</legend>
          <PermissionPicker resources={resources} />
        </fieldset>
        <div className="form-actions">
          <button type="submit" name="intent" value="create" className="button button--primary" disabled={fetcher.state !== 'idle'} data-testid="key-create">
            Create key
          </button>
        </div>
        {result?.ok === false ? <RowError message={result.error} /> : null}
      </fetcher.Form>
    </div>
  );
}

function grantSummary(g: Grant, names: Map<string, string>): string {
  const label = PERMISSION_LABELS[g.permission] ?? g.permission;
  if (!g.resources?.length) return label;
  const what = g.resources.map((r) => names.get(r.id) ?? r.id);
  return `${label} (only ${what.slice(0, 3).join(', ')}${what.length > 3 ? ` and ${what.length - 3} more` : ''})`;
}

type KeyView = Route.ComponentProps['loaderData']['keys'][number];

function KeyRow({ k, names, resources, canEdit }: { k: KeyView; names: Map<string, string>; resources: Resources; canEdit: boolean }) {
  const fetcher = useFetcher<ActionAnswer>();
  const busy = fetcher.state !== 'idle';
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const stopEditing = useCallback((didSave?: boolean) => {
    setEditing(false);
    setSaved(Boolean(didSave));
  }, []);
  return (
    <Fragment>
      <tr data-testid={`key-${k.name}`}>
        <td>
          <div className="cell-main">{k.name}</div>
          <div className="cell-sub">
            <code>{k.prefix ?? `cairn_${k.key_id}`}_…</code>
          </div>
        </td>
        <td className="small">{k.permissions.map((g) => grantSummary(g, names)).join(', ')}</td>
        <td>
          <Pill tone={k.enabled ? 'ok' : 'bad'} testId="key-status">
            {k.enabled ? 'enabled' : 'disabled'}
          </Pill>
        </td>
        <td className="cell-sub">{k.last_used_at ? formatDateTime(k.last_used_at) : 'never'}</td>
        <td className="cell-sub">{formatDateTime(k.created_at)}</td>
        <td className="cell-actions">
          <fetcher.Form method="post" className="row-actions">
            <input type="hidden" name="id" value={k.id} />
            {canEdit ? (
              <button
                type="button"
                className="button button--small"
                onClick={() => {
                  setSaved(false);
                  setEditing((e) => !e);
                }}
                aria-expanded={editing}
                data-testid="key-edit"
              >
                Edit
              </button>
            ) : null}
            <button type="submit" name="intent" value={k.enabled ? 'disable' : 'enable'} className="button button--small" disabled={busy}>
              {k.enabled ? 'Disable' : 'Enable'}
            </button>
            <ConfirmButton label="Delete" confirmLabel="Delete key" question="Programs using it stop working at once." value="delete" disabled={busy} />
          </fetcher.Form>
          {fetcher.data?.ok === false ? <RowError message={fetcher.data.error} /> : null}
          {fetcher.data?.ok && fetcher.data.message && !busy ? (
            <p className="row-ok" role="status" data-testid="key-row-ok">
              {fetcher.data.message}
            </p>
          ) : null}
          {saved && !editing ? (
            <p className="row-ok" role="status" data-testid="key-saved">
              Changes saved.
            </p>
          ) : null}
        </td>
      </tr>
      {editing ? (
        <tr data-testid={`key-edit-${k.name}`}>
          <td colSpan={6}>
            <EditKey id={k.id} name={k.name} grants={k.permissions} resources={resources} onDone={stopEditing} />
          </td>
        </tr>
      ) : null}
    </Fragment>
  );
}

export default function ApiKeys({ loaderData }: Route.ComponentProps) {
  const { viewer, keys, resources } = loaderData;
  const names = new Map([...resources.dashboards, ...resources.datasources, ...resources.sql_alerts].map((r) => [r.id, r.name]));
  return (
    <main className="page admin-page">
      <AdminHeader
        title="API keys"
        viewer={viewer}
        lead="Keys let programs use the Cairn API. A key works while it exists and is enabled; give each program its own key with only the permissions it needs."
      />
      <CreateKey resources={resources} />
      <section className="section" aria-labelledby="keys">
        <h2 id="keys">{keys.length === 1 ? '1 key' : `${keys.length} keys`}</h2>
        <div className="data-table-wrap">
          <table className="data-table" data-testid="keys-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Permissions</th>
                <th>Status</th>
                <th>Last used</th>
                <th>Created</th>
                <th className="cell-actions">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.length ? (
                keys.map((k) => <KeyRow key={k.id} k={k} names={names} resources={resources} canEdit={viewer.role === 'admin'} />)
              ) : (
                <tr>
                  <td colSpan={6} className="empty-row">
                    No API keys yet.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </section>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
