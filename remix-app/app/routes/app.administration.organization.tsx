/**
 * `/app/administration/organization`: name and time zone, the plan's limits and their use, and the
 * legal and compliance facts. Reading needs Manage Users (the API answers 403 otherwise, shown as the
 * error page); saving is for admins in the app (the API decides that too).
 */
import { useState } from 'react';
import { data, Form, useNavigation } from 'react-router';
import type { Route } from './+types/app.administration.organization';
import { AdminHeader } from '../components/admin/AdminNav';
import { answer, field, jsonapi, loadViewer } from '../components/admin/admin.server';
import { formatDate, Meter, RowError } from '../components/admin/ui';
import { ErrorPage } from '../components/ErrorPage';
import { TimeZonePick } from '../components/schedules/TimeZonePick';
import { requireApi } from '../lib/api.server';
import type { ApiAnswer } from '../lib/types';
import '../components/admin/admin.css';
import { readForm } from '../lib/forms.server';

export function meta() {
  return [{ title: 'Organization · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [viewer, doc] = await Promise.all([loadViewer(api), api.get<ApiAnswer<'/organization', 'get'>>('/organization')]);
  return { viewer, id: doc.data.id, organization: doc.data.attributes };
}

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const orgId = field(form, 'id');
  const res = await api.call('PATCH', '/organization', {
    jsonapi: true,
    body: jsonapi('organizations', { name: field(form, 'name'), time_zone: field(form, 'time_zone') }, orgId),
  });
  const out = answer(res, 'save', orgId, { message: 'Saved.' });
  return data(out, { status: res.ok ? 200 : res.problem.status >= 500 ? 503 : res.problem.status });
}

const REGION_TEXT = {
  eu: 'European Union: the organization’s database records, cached query results and exports are stored and processed on the EU servers.',
  us: 'United States: the organization’s database records, cached query results and exports are stored and processed on the US servers.',
} as const;

export default function OrganizationSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { organization: o, viewer, id } = loaderData;
  const navigation = useNavigation();
  const saving = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  const canEdit = viewer.role === 'admin';
  const [zone, setZone] = useState(o.time_zone);
  return (
    <main className="page admin-page">
      <AdminHeader title="Organization" viewer={viewer} lead="Settings that apply to everyone in the organization." />

      <section className="section" aria-labelledby="general">
        <h2 id="general">General</h2>
        <div className="card">
          <dl className="facts">
            <div>
              <dt>Name</dt>
              <dd data-testid="organization-name">{o.name}</dd>
            </div>
            <div>
              <dt>Organization id</dt>
              <dd>
                <code>{id}</code>
              </dd>
            </div>
            <div>
              <dt>Region</dt>
              <dd data-testid="organization-region">{o.region.toUpperCase()}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{formatDate(o.created_at)}</dd>
            </div>
          </dl>
        </div>
        {canEdit ? (
          <Form method="post" className="card" aria-label="Organization settings">
            <input type="hidden" name="id" value={id} />
            <div className="form-grid">
              <label className="field">
                <span className="field__label">Name</span>
                <input name="name" required maxLength={200} defaultValue={o.name} data-testid="organization-name-input" />
              </label>
              <TimeZonePick name="time_zone" label="Time zone" value={zone} onChange={setZone} formField />
            </div>
            <p className="muted small">
              The time zone is used for scheduled e-mails and SQL alerts, refresh anchor times, and every dashboard whose time zone follows the organization.
              Changing it changes how dates fall into days and weeks on those dashboards.
            </p>
            <div className="form-actions">
              <button type="submit" className="button button--primary" disabled={saving}>
                {saving ? 'Saving…' : 'Save'}
              </button>
              {actionData?.ok ? (
                <span className="row-ok" role="status" data-testid="organization-saved">
                  {actionData.message}
                </span>
              ) : null}
            </div>
            <RowError message={actionData && !actionData.ok ? actionData.error : null} />
          </Form>
        ) : null}
      </section>

      <section className="section" aria-labelledby="plan">
        <h2 id="plan">Plan and limits</h2>
        <p className="section__lead">
          Plan <strong>{o.plan}</strong>. Analysts and admins who are not deactivated take an analyst seat, pending invitations included; viewers do not. The
          sample datasource does not count as a datasource. There is no limit unless the operator of this server sets one; a change beyond a limit is refused
          with the error <code>plan_limit</code>.
        </p>
        <div className="card stats">
          {o.plan_analyst_seats !== null ? (
            <Meter label="Analyst seats" used={o.analyst_seats_used} limit={o.plan_analyst_seats} testId="seats" />
          ) : (
            <Usage label="Analysts and admins" used={o.analyst_seats_used} testId="seats" />
          )}
          {o.plan_datasources !== null ? (
            <Meter label="Datasources" used={o.datasources_used} limit={o.plan_datasources} testId="datasources" />
          ) : (
            <Usage label="Datasources" used={o.datasources_used} testId="datasources" />
          )}
        </div>
      </section>

      <section className="section legal" aria-labelledby="legal">
        <h2 id="legal">Legal and compliance</h2>
        <p className="section__lead">What your legal or security team usually asks about.</p>
        <div className="card">
          <dl>
            <dt>Where data lives</dt>
            <dd>{REGION_TEXT[o.region]} The region is chosen when the organization is created and cannot be changed.</dd>
            <dt>Query results</dt>
            <dd>Executions and their result data are kept for 24 hours, then deleted. Data access tokens for the data server expire after 5 minutes.</dd>
            <dt>SQL alert results</dt>
            <dd>Kept for 30 days.</dd>
            <dt>Secrets</dt>
            <dd>
              User passwords, API key secrets and sharing-link passwords are stored only as hashes; datasource passwords and sharing secrets are stored
              encrypted.
            </dd>
            <dt>Sub-processors</dt>
            <dd>
              None when you run Cairn yourself: your data stays on the servers and databases you operate. On a hosted installation, the operator names theirs.
            </dd>
            <dt>Export and deletion</dt>
            <dd>
              Dashboards can be exported as backups through the API (<code>POST /dashboards/&#123;id&#125;/backup</code>); users are deactivated on the Users
              page. For a complete export of the organization’s data, or its deletion, ask the operator of your installation: everything the organization holds
              lives in its own rows of the database and can be exported or removed together.
            </dd>
          </dl>
        </div>
      </section>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}

/** What is in use where no limit is set: the count alone. */
function Usage({ label, used, testId }: { label: string; used: number; testId: string }) {
  return (
    <div className="meter" data-testid={testId} data-limit="none">
      <div className="meter__label">
        <span>{label}</span>
        <strong>{used}</strong>
      </div>
    </div>
  );
}
