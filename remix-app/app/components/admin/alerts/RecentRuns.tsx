/** The alert's latest recorded results (the API keeps 30 days). */
import type { ApiSchema } from '@cairn/client';
import { formatDateTime, Pill, type PillTone } from '../ui';

/** One recorded run (GET /sql_alerts/{id}/results), the parts the list shows. */
export type AlertResultItem = Pick<ApiSchema<'SqlAlertResults'>['items'][number], 'result_status' | 'error_message' | 'created_at'>;

export function resultTone(status: string | null | undefined): PillTone {
  if (!status) return 'plain';
  if (status === 'ok') return 'ok';
  if (status === 'alert_triggered') return 'warn';
  return status === 'cancelled' ? 'plain' : 'bad';
}

export function RecentRuns({ items }: { items: AlertResultItem[] }) {
  return (
    <div className="data-table-wrap">
      <table className="data-table" data-testid="alert-results">
        <thead>
          <tr>
            <th>When</th>
            <th>Result</th>
            <th>Message</th>
          </tr>
        </thead>
        <tbody>
          {items.length ? (
            items.map((r, i) => (
              <tr key={`${r.created_at}-${i}`}>
                <td className="cell-sub">{formatDateTime(r.created_at)}</td>
                <td>
                  <Pill tone={resultTone(r.result_status)}>{r.result_status.replace(/_/g, ' ')}</Pill>
                </td>
                <td className="small">{r.error_message ?? '—'}</td>
              </tr>
            ))
          ) : (
            <tr>
              <td colSpan={3} className="empty-row">
                Not run yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
