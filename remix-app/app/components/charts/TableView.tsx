import type { Cell } from '../../lib/types';
import { Columns } from './columns';
import { formatCell, isNumericField } from './format';

export const TABLE_ROW_LIMIT = 200;

export function TableView({ columns, rows, rowCount, caption }: { columns: Columns; rows: Cell[][]; rowCount: number; caption: string }) {
  const shown = rows.slice(0, TABLE_ROW_LIMIT);
  const fields = columns.fields;
  return (
    <div className="table-view">
      <div className="table-view__scroll" tabIndex={0} role="region" aria-label={`${caption} (table)`}>
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {fields.map((f) => (
                <th key={f.name} scope="col" className={isNumericField(f) ? 'num' : undefined}>
                  {f.human_name || f.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((row, i) => (
              <tr key={i}>
                {fields.map((f) => (
                  <td key={f.name} className={isNumericField(f) ? 'num' : undefined}>
                    {formatCell(columns.get(row, f.name), f)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="table-view__count" data-testid="table-count">
        {rowCount > shown.length
          ? `Showing the first ${shown.length.toLocaleString('en')} of ${rowCount.toLocaleString('en')} rows`
          : `${rowCount.toLocaleString('en')} ${rowCount === 1 ? 'row' : 'rows'}`}
      </p>
    </div>
  );
}
