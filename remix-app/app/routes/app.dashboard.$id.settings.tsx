/**
 * `/app/dashboards/{id}/settings`: every setting of a dashboard (name, description, time zone, data
 * refresh, page width, colour scheme, filter behaviour) for analysts and admins. Saved with
 * PATCH /dashboards/{id}; the API's 422 messages are shown at their fields. A locked dashboard's settings
 * are shown read-only (the API refuses changes until it is unlocked).
 */
import { Link, redirect, useFetcher } from 'react-router';
import type { Route } from './+types/app.dashboard.$id.settings';
import { DashboardSettingsForm } from '../components/dashboard-settings/DashboardSettingsForm';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import { changedAttributes, settingsErrors, settingsForm, type ApiError, type SettingsAttributes, type SettingsForm } from '../lib/dashboard-settings';
import { EDIT_REFUSED, requireGrant, write } from '../lib/editor.server';
import type { SingleDocument } from '../lib/types';
import '../components/editor/editor.css';
import '../components/dashboard-settings/settings.css';

export function meta({ data: d }: Route.MetaArgs) {
  return [{ title: d ? `Settings · ${d.dashboard.attributes.name} · Cairn` : 'Dashboard settings · Cairn' }];
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const session = await requireGrant(api, 'manage_dashboards', EDIT_REFUSED);
  const doc = await api.get<SingleDocument<SettingsAttributes>>(`/dashboards/${encodeURIComponent(params.id)}`);
  return {
    dashboard: { id: doc.data.id, attributes: doc.data.attributes },
    organizationZone: session.organization.time_zone ?? 'UTC',
  };
}

type Payload = { form: SettingsForm };
export type SettingsAction = { errors: ApiError[] };

export async function action({ request, context, params }: Route.ActionArgs): Promise<SettingsAction | Response> {
  const api = requireApi(request, context);
  const p = (await request.json().catch(() => null)) as Payload | null;
  if (!p?.form) return { errors: [{ detail: 'The page sent a request the app cannot use.' }] };
  const id = encodeURIComponent(params.id);
  const back = `/app/dashboards/${id}`;
  // The changes are worked out against the dashboard as it is now, not as the page loaded it.
  const current = await api.get<SingleDocument<SettingsAttributes>>(`/dashboards/${id}`);
  const attributes = changedAttributes(p.form, current.data.attributes);
  if (Object.keys(attributes).length === 0) return redirect(back);
  const res = await write(api, 'PATCH', `/dashboards/${id}`, { data: { type: 'dashboards', id: params.id, attributes } });
  return res.ok ? redirect(back) : { errors: res.errors };
}

export default function DashboardSettingsPage({ loaderData }: Route.ComponentProps) {
  const { dashboard, organizationZone } = loaderData;
  const save = useFetcher<SettingsAction>({ key: 'dashboard-settings' });
  const a = dashboard.attributes;
  const locked = Boolean(a.is_locked);
  const back = `/app/dashboards/${encodeURIComponent(dashboard.id)}`;
  const errors = settingsErrors(save.data?.errors) as Record<string, string[]>;
  return (
    <main className="page page--narrow" data-testid="dashboard-settings-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/app/">Dashboards</Link> <span aria-hidden="true">/</span> <Link to={back}>{a.name}</Link> <span aria-hidden="true">/</span>{' '}
        <span>Settings</span>
      </nav>
      <header className="page-header">
        <div>
          <p className="eyebrow">Dashboard settings</p>
          <h1>{a.name}</h1>
        </div>
      </header>
      {locked ? (
        <p className="notice" role="status" data-testid="settings-locked">
          🔒 This dashboard is locked, so its settings cannot be changed. Unlock it from the dashboard’s ⋯ menu first.
        </p>
      ) : null}
      <DashboardSettingsForm
        key={String(a.updated_at ?? '')}
        initial={settingsForm(a)}
        organizationZone={organizationZone}
        errors={errors}
        busy={save.state !== 'idle'}
        readOnly={locked}
        cancelHref={back}
        onSubmit={(form) => save.submit({ form } as never, { method: 'post', encType: 'application/json' })}
      />
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
