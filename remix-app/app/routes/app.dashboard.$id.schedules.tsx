/**
 * `/app/dashboards/{id}/schedules`: the dashboard's scheduled e-mails — list, create, edit, delete and
 * "Send now" (which answers once the mail server accepted the e-mail). Seeing them needs View
 * Schedules; the controls show only with Manage Schedules, and the API decides every call anyway.
 */
import type { ApiSchema } from '@cairn/client';
import { useEffect, useState } from 'react';
import { Link, useFetcher } from 'react-router';
import type { Route } from './+types/app.dashboard.$id.schedules';
import { listPath, loadViewer, relatedIds, type ListDoc } from '../components/admin/admin.server';
import { ScheduleFormView } from '../components/schedules/ScheduleFormView';
import { ScheduleRow, type ScheduleView } from '../components/schedules/ScheduleRow';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import { write } from '../lib/editor.server';
import { errorsByField, type ApiErrorItem } from '../lib/editor-forms';
import {
  describeSendNow,
  formFromSchedule,
  SCHEDULE_DEFAULTS,
  scheduleBody,
  type ScheduleAttributes,
  type ScheduleBody,
  type ScheduleForm,
  type SendNowAnswer,
} from '../lib/schedule-form';
import { buildFilterDefs } from '../lib/filters-defs';
import { dashboardDefaultValues } from '../lib/filters';
import type { DashboardAttributes, SessionInfo, SingleDocument } from '../lib/types';
import '../components/admin/admin.css';
import '../components/editor/editor.css';

export function meta({ data: d }: Route.MetaArgs) {
  return [{ title: d ? `Scheduled e-mails of ${d.dashboard.name} · Cairn` : 'Scheduled e-mails · Cairn' }];
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [viewer, doc, schedules, session] = await Promise.all([
    loadViewer(api),
    api.get<SingleDocument<DashboardAttributes>>(`/dashboards/${encodeURIComponent(params.id)}?include=reports,filters`),
    api.call<ListDoc<ScheduleAttributes>>('GET', listPath('/dashboard_schedules')),
    api.get<SessionInfo>('/auth/session'),
  ]);
  // The dashboard's filters, so the form offers its own filter bar for the schedule's values.
  const defs = buildFilterDefs(doc);
  const dashboardDefaults = dashboardDefaultValues(defs, doc.data.attributes.default_parameters);
  const reports = (doc.included ?? [])
    .filter((r) => r.type === 'reports')
    .map((r) => ({ id: r.id, name: String((r.attributes as { name?: string }).name ?? r.id) }));
  return {
    dashboard: { id: doc.data.id, name: doc.data.attributes.name },
    reports,
    filters: {
      dashboardId: doc.data.id,
      defs,
      defaults: Object.fromEntries(defs.map((d) => [d.variable, dashboardDefaults[d.variable] ?? d.defaultValue])),
      organizationZone: session.organization.time_zone ?? 'UTC',
    },
    canManage: viewer.permissions.includes('manage_schedules'),
    listError: schedules.ok ? null : schedules.problem.message,
    schedules: schedules.ok
      ? schedules.body.data
          .filter((s) => relatedIds(s, 'dashboard')[0] === doc.data.id)
          .map((s) => ({ id: s.id, attributes: s.attributes, report: relatedIds(s, 'report')[0] ?? null }))
      : [],
  };
}

type Payload =
  | { intent: 'create' | 'send_test'; body: ScheduleBody }
  | { intent: 'update'; id: string; body: ScheduleBody }
  | { intent: 'delete' | 'send_now'; id: string };
export type ScheduleActionAnswer = { intent: string; id?: string; ok?: boolean; message?: string; errors?: ApiErrorItem[] };

export async function action({ request, context }: Route.ActionArgs): Promise<ScheduleActionAnswer> {
  const api = requireApi(request, context);
  const p = (await request.json().catch(() => null)) as Payload | null;
  if (!p) return { intent: 'unknown', errors: [{ detail: 'The page sent a body the app cannot read.' }] };
  const path = (id: string) => `/dashboard_schedules/${encodeURIComponent(id)}`;
  if (p.intent === 'create') {
    const res = await write(api, 'POST', '/dashboard_schedules', p.body);
    return res.ok ? { intent: p.intent, ok: true } : { intent: p.intent, errors: res.errors };
  }
  if (p.intent === 'update' || p.intent === 'delete') {
    const res = p.intent === 'update' ? await write(api, 'PATCH', path(p.id), p.body) : await write(api, 'DELETE', path(p.id));
    return res.ok ? { intent: p.intent, id: p.id, ok: true } : { intent: p.intent, id: p.id, errors: res.errors };
  }
  if (p.intent === 'send_test') {
    // The form as it is, to the signed-in user only (the API ignores the recipients; empty ones are left out).
    const { emails: _to, cc_emails: _cc, bcc_emails: _bcc, id: _id, ...attributes } = p.body.data.attributes as Record<string, unknown>;
    if (typeof attributes.name === 'string' && !attributes.name.trim()) delete attributes.name;
    const body = { data: { type: 'dashboard_schedules', attributes, relationships: p.body.data.relationships } };
    const res = await write<ApiSchema<'DashboardScheduleSendTestAnswer'>>(api, 'POST', '/dashboard_schedules/send_test', body);
    return res.ok
      ? { intent: p.intent, ok: true, message: `Test sent to you (${res.body.to}): ${describeSendNow(res.body).replace(/^Sent to 1 recipient/, 'one e-mail')}` }
      : { intent: p.intent, errors: res.errors };
  }
  if (p.intent === 'send_now') {
    const res = await write<SendNowAnswer>(api, 'POST', `${path(p.id)}/send_now`, {}, false);
    return res.ok ? { intent: p.intent, id: p.id, ok: true, message: describeSendNow(res.body) } : { intent: p.intent, id: p.id, errors: res.errors };
  }
  return { intent: 'unknown', errors: [{ detail: 'Unknown action.' }] };
}

type Editing = { mode: 'create' } | { mode: 'update'; id: string } | null;

export default function DashboardSchedules({ loaderData }: Route.ComponentProps) {
  const { dashboard, reports, filters, schedules, canManage, listError } = loaderData;
  const fetcher = useFetcher<ScheduleActionAnswer>();
  const [editing, setEditing] = useState<Editing>(null);
  const [localErrors, setLocalErrors] = useState<Record<string, string[]>>({});
  const last = fetcher.data;
  const busy = fetcher.state !== 'idle';
  const tester = useFetcher<ScheduleActionAnswer>({ key: 'schedule-send-test' });
  const [flash, setFlash] = useState<string | null>(null);
  useEffect(() => {
    if (fetcher.state === 'idle' && last?.ok && (last.intent === 'create' || last.intent === 'update')) {
      setEditing(null);
      setFlash(last.intent === 'create' ? 'Scheduled e-mail created.' : 'Scheduled e-mail saved.');
    }
  }, [fetcher.state, last]);
  const sendTest = (form: ScheduleForm) => {
    const built = scheduleBody(form, dashboard.id, undefined, filters.defs);
    if (!built.ok) return setLocalErrors(built.errors);
    setLocalErrors({});
    tester.submit({ intent: 'send_test', body: built.body } as never, { method: 'post', encType: 'application/json' });
  };
  const testing = tester.state !== 'idle';
  const tested = tester.data && !testing ? tester.data : null;
  const send = (payload: Payload) => fetcher.submit(payload as never, { method: 'post', encType: 'application/json' });
  const current = editing?.mode === 'update' ? (schedules.find((s) => s.id === editing.id) ?? null) : null;
  const formErrors = Object.keys(localErrors).length
    ? localErrors
    : last && !last.ok && (last.intent === 'create' || last.intent === 'update')
      ? errorsByField(last.errors)
      : {};
  const submit = (form: ScheduleForm) => {
    const built = scheduleBody(form, dashboard.id, current?.id, filters.defs);
    if (!built.ok) return setLocalErrors(built.errors);
    setLocalErrors({});
    send(current ? { intent: 'update', id: current.id, body: built.body } : { intent: 'create', body: built.body });
  };
  const base = `/app/dashboards/${encodeURIComponent(dashboard.id)}`;
  const reportName = (id: string | null) => (id ? (reports.find((r) => r.id === id)?.name ?? id) : null);

  return (
    <main className="page admin-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/app/">Dashboards</Link> <span aria-hidden="true">/</span> <Link to={base}>{dashboard.name}</Link> <span aria-hidden="true">/</span>{' '}
        <span>Scheduled e-mails</span>
      </nav>
      <header className="page-header">
        <div>
          <p className="eyebrow">Sharing</p>
          <h1>Scheduled e-mails of “{dashboard.name}”</h1>
        </div>
        {canManage ? (
          <button
            type="button"
            className="button button--primary"
            onClick={() => {
              setLocalErrors({});
              setFlash(null);
              setEditing({ mode: 'create' });
            }}
            disabled={editing?.mode === 'create'}
            data-testid="new-schedule"
          >
            New scheduled e-mail
          </button>
        ) : null}
      </header>
      <p className="section__lead">
        The dashboard, or one of its reports, sent by e-mail at set times to people who need no Cairn account. Times are read in the organization’s time zone
        unless a schedule sets its own. “Send now” sends at once and leaves the next regular time as it is.
      </p>
      {listError ? (
        <p className="alert alert--error" role="alert">
          {listError}
        </p>
      ) : null}
      {flash && !editing ? (
        <div className="alert alert--ok flash" role="status" data-testid="schedule-saved">
          {flash}
        </div>
      ) : null}
      {editing ? (
        <ScheduleFormView
          key={current?.id ?? 'new'}
          mode={editing.mode}
          initial={current ? formFromSchedule(current.attributes, current.report, filters.defs) : SCHEDULE_DEFAULTS}
          reports={reports}
          filters={filters}
          errors={formErrors}
          busy={busy}
          onCancel={() => {
            setLocalErrors({});
            setEditing(null);
          }}
          onSubmit={submit}
          onSendTest={sendTest}
          testing={testing}
          testResult={
            tested ? (
              tested.ok ? (
                <p className="row-ok" role="status" data-testid="send-test-result">
                  {tested.message}
                </p>
              ) : (
                <p className="row-error" role="alert" data-testid="send-test-result">
                  {(tested.errors ?? []).map((e) => e.detail || e.title || 'Refused.').join(' ')}
                </p>
              )
            ) : null
          }
        />
      ) : null}
      <ul className="resource-list" data-testid="schedule-list">
        {schedules.length === 0 && !listError ? <li className="muted">No scheduled e-mails yet.</li> : null}
        {schedules.map((s) => (
          <ScheduleRow
            key={s.id}
            schedule={{ id: s.id, ...s.attributes, reportName: reportName(s.report) } satisfies ScheduleView}
            canManage={canManage}
            onEdit={() => {
              setLocalErrors({});
              setFlash(null);
              setEditing({ mode: 'update', id: s.id });
            }}
          />
        ))}
      </ul>
      <p className="muted small">
        Every schedule of the organization is listed under <Link to="/app/administration/schedules">Administration → Schedules</Link>.
      </p>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
