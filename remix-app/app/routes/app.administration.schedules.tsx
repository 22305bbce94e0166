/**
 * `/app/administration/schedules`: every scheduled e-mail with its state (read-only): what it sends,
 * to how many people, when, and when it last went out. Needs View Schedules.
 */
import type { ResourceObject } from '@cairn/core';
import type { Route } from './+types/app.administration.schedules';
import { AdminHeader } from '../components/admin/AdminNav';
import { listPath, loadViewer, relatedIds, type ListDoc } from '../components/admin/admin.server';
import { formatDateTime, Pill } from '../components/admin/ui';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import '../components/admin/admin.css';

interface ScheduleAttributes {
  name: string;
  emails: string;
  cc_emails: string | null;
  bcc_emails: string | null;
  attach_as: string;
  schedule: string;
  next_send_at: string | null;
  last_sent_at: string | null;
}

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
      const target = report ? `Report: ${names.get(`reports:${report}`) ?? report}` : dashboard ? `Dashboard: ${names.get(`dashboards:${dashboard}`) ?? dashboard}` : '—';
      const recipients = [s.attributes.emails, s.attributes.cc_emails, s.attributes.bcc_emails].filter(Boolean).join(',').split(',').map((e) => e.trim()).filter(Boolean).length;
      return { id: s.id, ...s.attributes, target, recipients };
    }),
  };
}

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** "weekly;0,4;09:00" → "weekly on Mon, Fri at 09:00" (the string itself when it does not parse). */
export function describeSchedule(s: string): string {
  const [kind, a, b] = s.split(';').map((x) => x.trim());
  if (kind === 'disabled') return 'disabled';
  if (kind === 'daily' && a) return `daily at ${a.split(',').join(', ')}`;
  if (kind === 'weekly' && a && b) return `weekly on ${a.split(',').map((d) => DAYS[Number(d)] ?? d).join(', ')} at ${b.split(',').join(', ')}`;
  if (kind === 'monthly' && a && b) return `monthly on day ${a.split(',').join(', ')} at ${b.split(',').join(', ')}`;
  return s;
}

export default function Schedules({ loaderData }: Route.ComponentProps) {
  const { viewer, schedules, total } = loaderData;
  return (
    <main className="page admin-page">
      <AdminHeader title="Scheduled e-mails" viewer={viewer} lead="Dashboards and reports sent by e-mail on a schedule, in the organization’s time zone unless a schedule sets its own." />
      <section className="section" aria-labelledby="schedules">
        <h2 id="schedules">{total === 1 ? '1 schedule' : `${total} schedules`}</h2>
        <div className="data-table-wrap">
          <table className="data-table" data-testid="schedules-table">
            <thead>
              <tr><th>Name</th><th>Sends</th><th>Schedule</th><th>Next send</th><th>Last sent</th></tr>
            </thead>
            <tbody>
              {schedules.length ? schedules.map((s) => (
                <tr key={s.id} data-testid={`schedule-${s.name}`}>
                  <td>
                    <div className="cell-main">{s.name}</div>
                    <div className="cell-sub">{s.recipients === 1 ? '1 recipient' : `${s.recipients} recipients`} · {s.attach_as.split(',').join(', ')}</div>
                  </td>
                  <td>{s.target}</td>
                  <td>{s.schedule === 'disabled' ? <Pill>disabled</Pill> : describeSchedule(s.schedule)}</td>
                  <td className="cell-sub">{formatDateTime(s.next_send_at)}</td>
                  <td className="cell-sub">{s.last_sent_at ? formatDateTime(s.last_sent_at) : 'never'}</td>
                </tr>
              )) : <tr><td colSpan={5} className="empty-row">No scheduled e-mails yet.</td></tr>}
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
