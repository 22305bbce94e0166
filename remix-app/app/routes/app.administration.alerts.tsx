/**
 * `/app/administration/alerts`: every SQL alert with its state (read-only): what it queries, when it
 * runs, when it runs next, and how its last run went. Needs View Alerts.
 */
import type { Route } from './+types/app.administration.alerts';
import { AdminHeader } from '../components/admin/AdminNav';
import { listPath, loadViewer, relatedIds, type ListDoc } from '../components/admin/admin.server';
import { formatDateTime, Pill, type PillTone } from '../components/admin/ui';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import '../components/admin/admin.css';

interface AlertAttributes {
  name: string;
  run_schedule: 'disabled' | 'at' | 'every';
  run_at: string | null;
  run_every: number | null;
  trigger_condition: string;
  trigger_value: number | null;
  email_condition: string;
  last_result_status: string | null;
  last_error_message: string | null;
  last_query_run: string | null;
  next_run_at: string | null;
}

export function meta() {
  return [{ title: 'SQL alerts · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [viewer, alerts] = await Promise.all([loadViewer(api), api.get<ListDoc<AlertAttributes>>(listPath('/sql_alerts?include=datasource'))]);
  const datasources = new Map((alerts.included ?? []).filter((r) => r.type === 'datasources').map((r) => [r.id, String((r.attributes as { name?: string }).name ?? r.id)]));
  return {
    viewer,
    total: alerts.meta?.total ?? alerts.data.length,
    alerts: alerts.data.map((a) => ({ id: a.id, ...a.attributes, datasource: datasources.get(relatedIds(a, 'datasource')[0] ?? '') ?? relatedIds(a, 'datasource')[0] ?? '—' })),
  };
}

function schedule(a: AlertAttributes): string {
  if (a.run_schedule === 'every' && a.run_every) return a.run_every % 60 === 0 ? `every ${a.run_every / 60} h` : `every ${a.run_every} min`;
  if (a.run_schedule === 'at' && a.run_at) return `daily at ${a.run_at}`;
  return 'manual runs only';
}

const CONDITIONS: Record<string, string> = {
  has_results: 'when the query has results', no_results: 'when it has none', greater_than: 'when greater than', lower_than: 'when lower than',
  equal: 'when equal to', not_equal: 'when not equal to',
};

function tone(status: string | null): PillTone {
  if (!status) return 'plain';
  if (status === 'ok') return 'ok';
  if (status === 'alert_triggered') return 'warn';
  return 'bad';
}

export default function Alerts({ loaderData }: Route.ComponentProps) {
  const { viewer, alerts, total } = loaderData;
  return (
    <main className="page admin-page">
      <AdminHeader title="SQL alerts" viewer={viewer} lead="Alerts run a query on a schedule and e-mail when its result meets the condition. This list shows their state; results are kept 30 days." />
      <section className="section" aria-labelledby="alerts">
        <h2 id="alerts">{total === 1 ? '1 alert' : `${total} alerts`}</h2>
        <div className="data-table-wrap">
          <table className="data-table" data-testid="alerts-table">
            <thead>
              <tr><th>Name</th><th>Datasource</th><th>Schedule</th><th>Next run</th><th>Last run</th><th>Last status</th></tr>
            </thead>
            <tbody>
              {alerts.length ? alerts.map((a) => (
                <tr key={a.id} data-testid={`alert-${a.name}`}>
                  <td>
                    <div className="cell-main">{a.name}</div>
                    <div className="cell-sub">{CONDITIONS[a.trigger_condition] ?? a.trigger_condition}{a.trigger_value !== null && !['has_results', 'no_results'].includes(a.trigger_condition) ? ` ${a.trigger_value}` : ''}</div>
                  </td>
                  <td>{a.datasource}</td>
                  <td>{schedule(a)}</td>
                  <td className="cell-sub">{a.run_schedule === 'disabled' ? '—' : formatDateTime(a.next_run_at)}</td>
                  <td className="cell-sub">{formatDateTime(a.last_query_run)}</td>
                  <td>
                    <Pill tone={tone(a.last_result_status)}>{a.last_result_status?.replace(/_/g, ' ') ?? 'not run yet'}</Pill>
                    {a.last_error_message ? <div className="row-error">{a.last_error_message}</div> : null}
                  </td>
                </tr>
              )) : <tr><td colSpan={6} className="empty-row">No SQL alerts yet.</td></tr>}
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
