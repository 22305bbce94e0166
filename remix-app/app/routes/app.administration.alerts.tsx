/**
 * `/app/administration/alerts`: every SQL alert with its state (read-only): what it queries, when it
 * runs, when it runs next, and how its last run went. Needs View Alerts. Each name opens the alert's
 * page (edit, run now, delete); "New alert" is shown to those with Manage Alerts.
 */
import { Link } from 'react-router';
import type { Route } from './+types/app.administration.alerts';
import { AdminList, type AdminColumn } from '../components/admin/AdminList';
import { listPath, loadViewer, relatedIds, type ListDoc } from '../components/admin/admin.server';
import { formatDateTime, Pill, type PillTone } from '../components/admin/ui';
import { ErrorPage } from '../components/ErrorPage';
import type { AlertTriggerCondition } from '@cairn/core';
import type { AlertAttributes } from '../lib/alert-form';
import { requireApi } from '../lib/api.server';
import '../components/admin/admin.css';

export function meta() {
  return [{ title: 'SQL alerts · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [viewer, alerts] = await Promise.all([loadViewer(api), api.get<ListDoc<AlertAttributes>>(listPath('/sql_alerts?include=datasource'))]);
  const datasources = new Map(
    (alerts.included ?? []).filter((r) => r.type === 'datasources').map((r) => [r.id, String((r.attributes as { name?: string }).name ?? r.id)]),
  );
  return {
    viewer,
    total: alerts.meta?.total ?? alerts.data.length,
    alerts: alerts.data.map((a) => ({
      id: a.id,
      ...a.attributes,
      datasource: datasources.get(relatedIds(a, 'datasource')[0] ?? '') ?? relatedIds(a, 'datasource')[0] ?? '—',
    })),
  };
}

type AlertRow = AlertAttributes & { id: string; datasource: string };

function schedule(a: Pick<AlertAttributes, 'run_schedule' | 'run_at' | 'run_every'>): string {
  if (a.run_schedule === 'every' && a.run_every) return a.run_every % 60 === 0 ? `every ${a.run_every / 60} h` : `every ${a.run_every} min`;
  if (a.run_schedule === 'at' && a.run_at) return `daily at ${a.run_at}`;
  return 'manual runs only';
}

const CONDITIONS: Record<AlertTriggerCondition, string> = {
  has_results: 'when the query has results',
  no_results: 'when it has none',
  greater_than: 'when greater than',
  lower_than: 'when lower than',
  equal: 'when equal to',
  not_equal: 'when not equal to',
};

function tone(status: string | null): PillTone {
  if (!status) return 'plain';
  if (status === 'ok') return 'ok';
  if (status === 'alert_triggered') return 'warn';
  return 'bad';
}

const COLUMNS: AdminColumn<AlertRow>[] = [
  {
    header: 'Name',
    cell: (a) => (
      <>
        <div className="cell-main">
          <Link to={`/app/administration/alerts/${encodeURIComponent(a.id)}`} data-testid="alert-link">
            {a.name}
          </Link>
        </div>
        <div className="cell-sub">
          {CONDITIONS[a.trigger_condition] ?? a.trigger_condition}
          {a.trigger_value !== null && !['has_results', 'no_results'].includes(a.trigger_condition) ? ` ${a.trigger_value}` : ''}
        </div>
      </>
    ),
  },
  { header: 'Datasource', cell: (a) => a.datasource },
  { header: 'Schedule', cell: (a) => schedule(a) },
  { header: 'Next run', className: 'cell-sub', cell: (a) => (a.run_schedule === 'disabled' ? '—' : formatDateTime(a.next_run_at)) },
  { header: 'Last run', className: 'cell-sub', cell: (a) => formatDateTime(a.last_query_run) },
  {
    header: 'Last status',
    cell: (a) => (
      <>
        <Pill tone={tone(a.last_result_status)}>{a.last_result_status?.replace(/_/g, ' ') ?? 'not run yet'}</Pill>
        {a.last_error_message ? <div className="row-error">{a.last_error_message}</div> : null}
      </>
    ),
  },
];

export default function Alerts({ loaderData }: Route.ComponentProps) {
  const { viewer, alerts, total } = loaderData;
  return (
    <AdminList
      title="SQL alerts"
      lead="Alerts run a query on a schedule and e-mail when its result meets the condition. This list shows their state (results are kept 30 days); open an alert to change it, run it now or delete it."
      viewer={viewer}
      id="alerts"
      noun={['alert', 'alerts']}
      total={total}
      rows={alerts}
      columns={COLUMNS}
      rowPrefix="alert"
      empty="No SQL alerts yet."
      actions={
        viewer.permissions.includes('manage_alerts') ? (
          <Link to="/app/administration/alerts/new" className="button button--primary" data-testid="alert-new">
            New alert
          </Link>
        ) : undefined
      }
    />
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
