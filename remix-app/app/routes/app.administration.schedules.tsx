/**
 * `/app/administration/schedules`: every scheduled e-mail with its state (read-only): what it sends,
 * to how many people, when, and when it last went out. Needs View Schedules.
 */
import type { ResourceObject } from '@cairn/core';
import type { Route } from './+types/app.administration.schedules';
import { AdminList, type AdminColumn } from '../components/admin/AdminList';
import { listPath, loadViewer, relatedIds, type ListDoc } from '../components/admin/admin.server';
import { formatDateTime, Pill } from '../components/admin/ui';
import { ErrorPage } from '../components/ErrorPage';
import { describeSchedule } from '../components/schedules/ScheduleRow';
import { requireApi } from '../lib/api.server';
import type { ScheduleAttributes } from '../lib/schedule-form';
import '../components/admin/admin.css';

export function meta() {
  return [{ title: 'Schedules · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [viewer, schedules] = await Promise.all([
    loadViewer(api),
    api.get<ListDoc<ScheduleAttributes>>(listPath('/dashboard_schedules?include=dashboard,report')),
  ]);
  const names = new Map((schedules.included ?? []).map((r: ResourceObject) => [`${r.type}:${r.id}`, String((r.attributes as { name?: string }).name ?? r.id)]));
  return {
    viewer,
    total: schedules.meta?.total ?? schedules.data.length,
    schedules: schedules.data.map((s) => {
      const report = relatedIds(s, 'report')[0];
      const dashboard = relatedIds(s, 'dashboard')[0];
      // The report wins when both are set (spec).
      const target = report
        ? `Report: ${names.get(`reports:${report}`) ?? report}`
        : dashboard
          ? `Dashboard: ${names.get(`dashboards:${dashboard}`) ?? dashboard}`
          : '—';
      const recipients = [s.attributes.emails, s.attributes.cc_emails, s.attributes.bcc_emails]
        .filter(Boolean)
        .join(',')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean).length;
      return { id: s.id, ...s.attributes, target, recipients };
    }),
  };
}

type ScheduleRow = ScheduleAttributes & { id: string; target: string; recipients: number };

const COLUMNS: AdminColumn<ScheduleRow>[] = [
  {
    header: 'Name',
    cell: (s) => (
      <>
        <div className="cell-main">{s.name}</div>
        <div className="cell-sub">
          {s.recipients === 1 ? '1 recipient' : `${s.recipients} recipients`} · {s.attach_as.split(',').join(', ')}
        </div>
      </>
    ),
  },
  { header: 'Sends', cell: (s) => s.target },
  { header: 'Schedule', cell: (s) => (s.schedule === 'disabled' ? <Pill>disabled</Pill> : describeSchedule(s.schedule)) },
  { header: 'Next send', className: 'cell-sub', cell: (s) => formatDateTime(s.next_send_at) },
  { header: 'Last sent', className: 'cell-sub', cell: (s) => (s.last_sent_at ? formatDateTime(s.last_sent_at) : 'never') },
];

export default function Schedules({ loaderData }: Route.ComponentProps) {
  const { viewer, schedules, total } = loaderData;
  return (
    <AdminList
      title="Scheduled e-mails"
      lead="Dashboards and reports sent by e-mail on a schedule, in the organization’s time zone unless a schedule sets its own."
      viewer={viewer}
      id="schedules"
      noun={['schedule', 'schedules']}
      total={total}
      rows={schedules}
      columns={COLUMNS}
      rowPrefix="schedule"
      empty="No scheduled e-mails yet."
    />
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
