/** One scheduled e-mail in a dashboard's list: what it sends, when, its last send, and Edit / Send now / Delete. */
import { useState } from 'react';
import { useFetcher } from 'react-router';
import { formatDateTime, Pill, RowError } from '../admin/ui';
import type { ScheduleAttributes } from '../../lib/schedule-form';
import type { ScheduleActionAnswer } from '../../routes/app.dashboard.$id.schedules';

export type ScheduleView = ScheduleAttributes & { id: string; reportName: string | null };

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** "weekly;0,4;09:00" → "weekly on Mon, Fri at 09:00" (the string itself when it does not parse). */
export function describeSchedule(s: string): string {
  const [kind, a, b] = s.split(';').map((x) => x.trim());
  if (kind === 'disabled') return 'disabled';
  if (kind === 'daily' && a) return `daily at ${a.split(',').join(', ')}`;
  if (kind === 'weekly' && a && b)
    return `weekly on ${a
      .split(',')
      .map((d) => DAYS[Number(d)] ?? d)
      .join(', ')} at ${b.split(',').join(', ')}`;
  if (kind === 'monthly' && a && b) return `monthly on day ${a.split(',').join(', ')} at ${b.split(',').join(', ')}`;
  return s;
}

export function ScheduleRow({ schedule: s, canManage, onEdit }: { schedule: ScheduleView; canManage: boolean; onEdit(): void }) {
  const fetcher = useFetcher<ScheduleActionAnswer>();
  const [confirming, setConfirming] = useState(false);
  const busy = fetcher.state !== 'idle';
  const sending = busy && (fetcher.json as { intent?: string } | undefined)?.intent === 'send_now';
  const send = (intent: 'send_now' | 'delete') => fetcher.submit({ intent, id: s.id } as never, { method: 'post', encType: 'application/json' });
  const last = fetcher.data;
  return (
    <li className="resource-row" data-testid={`schedule-${s.name}`}>
      <div className="resource-row__main">
        <div className="resource-row__title">
          {s.name} {s.schedule === 'disabled' ? <Pill>disabled</Pill> : null}
        </div>
        <div className="resource-row__meta">
          {s.reportName ? `Report “${s.reportName}”` : 'Whole dashboard'} · {describeSchedule(s.schedule)}
          {s.time_zone ? ` (${s.time_zone})` : ''} · to {s.emails} · {s.attach_as.split(',').join(', ')}
        </div>
        <div className="resource-row__meta">
          Next: {s.next_send_at ? formatDateTime(s.next_send_at) : '—'} · Last sent: {s.last_sent_at ? formatDateTime(s.last_sent_at) : 'never'}
        </div>
        {last?.ok && last.intent === 'send_now' ? (
          <p className="row-ok" role="status" data-testid="send-now-result">
            {last.message}
          </p>
        ) : null}
        {last && !last.ok ? <RowError message={(last.errors ?? []).map((e) => e.detail || e.title || 'Refused.').join(' ')} /> : null}
      </div>
      {canManage ? (
        <div className="resource-row__actions">
          <button type="button" className="button button--small" onClick={onEdit} data-testid="edit-schedule">
            Edit
          </button>
          <button type="button" className="button button--small" disabled={busy} onClick={() => send('send_now')} data-testid="send-now">
            {sending ? 'Sending…' : 'Send now'}
          </button>
          {confirming ? (
            <span className="confirm" role="group" aria-label="Delete this schedule?">
              <span>No more e-mails?</span>
              <button
                type="button"
                className="button button--small button--danger-solid"
                disabled={busy}
                onClick={() => send('delete')}
                data-testid="confirm-delete-schedule"
              >
                Delete schedule
              </button>
              <button type="button" className="button button--small button--ghost" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </span>
          ) : (
            <button type="button" className="button button--small button--danger" onClick={() => setConfirming(true)} data-testid="delete-schedule">
              Delete
            </button>
          )}
        </div>
      ) : null}
    </li>
  );
}
