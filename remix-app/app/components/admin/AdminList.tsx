/**
 * A read-only administration list (SQL alerts, scheduled e-mails): the page header, a count and a table
 * whose columns say how to draw each row, with a row for "none yet". One component for every such list.
 */
import type { ReactNode } from 'react';
import { AdminHeader } from './AdminNav';

export interface AdminColumn<T> {
  header: string;
  cell: (row: T) => ReactNode;
  className?: string;
}

export interface AdminListProps<T extends { id: string; name: string }> {
  title: string;
  lead: string;
  viewer: Parameters<typeof AdminHeader>[0]['viewer'];
  /** The id of the section heading (also the test id stem: `<id>-table`, `<rowPrefix>-<name>`). */
  id: string;
  /** Singular and plural noun for the count: ['alert', 'alerts']. */
  noun: [string, string];
  total: number;
  rows: T[];
  columns: AdminColumn<T>[];
  rowPrefix: string;
  empty: string;
  /** Controls shown above the table (e.g. "New alert"). */
  actions?: ReactNode;
}

function countLabel(total: number, [one, many]: [string, string]): string {
  return total === 1 ? `1 ${one}` : `${total} ${many}`;
}

export function AdminList<T extends { id: string; name: string }>({
  title,
  lead,
  viewer,
  id,
  noun,
  total,
  rows,
  columns,
  rowPrefix,
  empty,
  actions,
}: AdminListProps<T>) {
  return (
    <main className="page admin-page">
      <AdminHeader title={title} viewer={viewer} lead={lead} />
      <section className="section" aria-labelledby={id}>
        <h2 id={id}>{countLabel(total, noun)}</h2>
        {actions ? (
          <div className="form-actions" style={{ margin: '0 0 12px' }}>
            {actions}
          </div>
        ) : null}
        <div className="data-table-wrap">
          <table className="data-table" data-testid={`${id}-table`}>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c.header}>{c.header}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.length ? (
                rows.map((r) => (
                  <tr key={r.id} data-testid={`${rowPrefix}-${r.name}`}>
                    {columns.map((c) => (
                      <td key={c.header} className={c.className}>
                        {c.cell(r)}
                      </td>
                    ))}
                  </tr>
                ))
              ) : (
                <tr>
                  <td colSpan={columns.length} className="empty-row">
                    {empty}
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </section>
    </main>
  );
}
