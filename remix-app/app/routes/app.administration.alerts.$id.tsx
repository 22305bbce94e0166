/**
 * `/app/administration/alerts/new` and `/app/administration/alerts/{id}`: create or edit a SQL alert
 * (every field), run it now and see what the run came to, see its recent results, delete it.
 * Creating and running need Manage Alerts; editing and deleting Manage Alerts or Manage Datasources
 * (the API decides, reaching the alert and its datasource); anyone with View Alerts may look.
 */
import type { ApiSchema } from '@cairn/client';
import { data, Link, redirect } from 'react-router';
import type { Route } from './+types/app.administration.alerts.$id';
import { AdminHeader } from '../components/admin/AdminNav';
import { AlertForm, type AlertSaveAnswer } from '../components/admin/alerts/AlertForm';
import { DeleteAlert } from '../components/admin/alerts/DeleteAlert';
import { RecentRuns, resultTone } from '../components/admin/alerts/RecentRuns';
import { RunNow, type AlertRunAnswer } from '../components/admin/alerts/RunNow';
import { field, listPath, loadViewer, relatedIds, type ListDoc } from '../components/admin/admin.server';
import { formatDateTime, Pill } from '../components/admin/ui';
import { ErrorPage } from '../components/ErrorPage';
import { alertBody, formFromAlert, newAlertForm, valuesFromFormData, type AlertAttributes } from '../lib/alert-form';
import { runAlertNow } from '../lib/alert-run.server';
import { requireApi } from '../lib/api.server';
import { write } from '../lib/editor.server';
import { errorsByField } from '../lib/editor-forms';
import type { SingleDocument } from '../lib/types';
import '../components/admin/admin.css';
import '../components/admin/alerts/alerts.css';
import { readForm } from '../lib/forms.server';

export function meta({ data: d }: Route.MetaArgs) {
  return [{ title: d?.alert ? `${d.alert.attributes.name} · SQL alerts · Cairn` : 'New SQL alert · Cairn' }];
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const viewer = await loadViewer(api);
  const has = (p: string) => viewer.permissions.includes(p);
  if (!params.id && !has('manage_alerts')) {
    throw data({ code: 'forbidden', message: 'Creating SQL alerts needs the Manage Alerts permission.' }, { status: 403 });
  }
  const id = params.id ? encodeURIComponent(params.id) : null;
  const [doc, results, datasources] = await Promise.all([
    id ? api.get<SingleDocument<AlertAttributes>>(`/sql_alerts/${id}`) : null,
    id ? api.call<ApiSchema<'SqlAlertResults'>>('GET', `/sql_alerts/${id}/results?limit=10`) : null,
    api.call<ListDoc<{ name: string; is_sample?: boolean }>>('GET', listPath('/datasources')),
  ]);
  const ds = datasources.ok ? datasources.body.data.map((d) => ({ id: d.id, name: d.attributes.name, sample: Boolean(d.attributes.is_sample) })) : [];
  const alert = doc ? { id: doc.data.id, attributes: doc.data.attributes, datasource: relatedIds(doc.data, 'datasource')[0] ?? '' } : null;
  return {
    viewer,
    alert,
    datasources: ds.map(({ id: dsId, name }) => ({ id: dsId, name })),
    defaultDatasource: ds.length === 1 ? ds[0]!.id : '',
    results: results?.ok ? results.body.items : [],
    canSave: params.id ? has('manage_alerts') || has('manage_datasources') : has('manage_alerts'),
    canRun: has('manage_alerts'),
    created: new URL(request.url).searchParams.get('created') === '1',
  };
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const intent = field(form, 'intent');
  const id = params.id ?? null;
  const path = id ? `/sql_alerts/${encodeURIComponent(id)}` : '/sql_alerts';
  if (intent === 'save') {
    const res = await write<{ data: { id: string } }>(api, id ? 'PATCH' : 'POST', path, alertBody(valuesFromFormData(form), id ?? undefined));
    if (!res.ok) return data<AlertSaveAnswer>({ intent: 'save', ok: false, errors: errorsByField(res.errors) }, { status: 422 });
    if (!id) return redirect(`/app/administration/alerts/${encodeURIComponent(res.body.data.id)}?created=1`);
    return { intent: 'save', ok: true } satisfies AlertSaveAnswer;
  }
  if (intent === 'run' && id) {
    return { intent: 'run', ...(await runAlertNow(api, id)) } as AlertRunAnswer;
  }
  if (intent === 'delete' && id) {
    const res = await api.call('DELETE', path);
    if (!res.ok) return data({ intent: 'delete' as const, error: res.problem.message }, { status: res.problem.status });
    return redirect('/app/administration/alerts');
  }
  return data({ intent: 'unknown', error: `Unknown action "${intent}".` }, { status: 400 });
}

export default function AlertPage({ loaderData }: Route.ComponentProps) {
  const { viewer, alert, datasources, defaultDatasource, results, canSave, canRun, created } = loaderData;
  const a = alert?.attributes;
  return (
    <main className="page admin-page">
      <AdminHeader
        title={a ? a.name : 'New SQL alert'}
        viewer={viewer}
        lead={
          a
            ? 'Change what the alert queries, when it triggers, when it runs and whom it e-mails; run it now to check it.'
            : 'An alert runs a query on a schedule (or when you run it) and e-mails when its result meets the condition.'
        }
      />
      <p className="small">
        <Link to="/app/administration/alerts">← All SQL alerts</Link>
      </p>
      {created ? (
        <div className="alert alert--ok flash" role="status" data-testid="alert-created">
          Alert created. Run it now to check it.
        </div>
      ) : null}
      {alert && a ? (
        <section className="card" aria-label="State and actions" data-testid="alert-state">
          <div className="alert-actions" style={{ justifyContent: 'space-between' }}>
            <span className="small">
              Last run: {formatDateTime(a.last_query_run)}{' '}
              <Pill tone={resultTone(a.last_result_status)} testId="alert-last-status">
                {a.last_result_status?.replace(/_/g, ' ') ?? 'not run yet'}
              </Pill>
              {a.run_schedule !== 'disabled' ? <span className="muted"> · next run {formatDateTime(a.next_run_at)}</span> : null}
            </span>
            {canSave ? <DeleteAlert /> : null}
          </div>
          {canRun ? (
            <div style={{ marginTop: 12 }}>
              <RunNow />
            </div>
          ) : null}
        </section>
      ) : null}
      <section className="section" aria-labelledby="alert-settings">
        <h2 id="alert-settings">Settings</h2>
        <AlertForm
          key={alert?.id ?? 'new'}
          initial={a && alert ? formFromAlert(a, alert.datasource) : newAlertForm(defaultDatasource)}
          datasources={datasources}
          isNew={!alert}
          canSave={canSave}
        />
      </section>
      {alert ? (
        <section className="section" aria-labelledby="alert-results-title">
          <h2 id="alert-results-title">Recent runs</h2>
          <RecentRuns items={results} />
        </section>
      ) : null}
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/administration/alerts', label: 'Back to SQL alerts' }} />;
}
