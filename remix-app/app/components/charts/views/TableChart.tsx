/**
 * The table: TanStack Table for columns and sorting, TanStack Virtual for rows, so 100,000 rows
 * scroll as smoothly as 100 (only the visible rows are in the DOM). Sorting happens within the
 * loaded rows; a header click cycles ascending → descending → result order.
 */
import { flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type ColumnDef, type SortingState } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { Cell, DataField } from '../../../lib/types';
import type { TableConfig } from '../config';
import { compareCells, toNumber } from '../data';
import { columnLabel, columnZone, formatCell, formatNumber, isNumericField } from '../format';
import { cellHref } from '../links';
import type { ViewProps } from './types';

const ROW_HEIGHT: Record<string, number> = { S: 28, M: 34, L: 40, XL: 48 };

export default function TableChart({ config, data, title, zone, onDrill }: ViewProps<TableConfig>) {
  const size = config.size ?? 'M';
  const rowHeight = ROW_HEIGHT[size]!;
  const fields = useMemo(() => {
    const byName = new Map(data.fields.map((f, i) => [f.name, { ...f, idx: Number.isInteger(f.idx) ? f.idx : i }]));
    const order = config.columns?.filter((c) => byName.has(c)) ?? data.fields.map((f) => f.name);
    return order.filter((n) => !config.hidden?.includes(n)).map((n) => byName.get(n)!);
  }, [data.fields, config.columns, config.hidden]);

  const columns = useMemo<ColumnDef<Cell[]>[]>(
    () =>
      fields.map((f: DataField) => {
        const z = columnZone(data.rows, f.idx, f, zone);
        return {
          id: f.name,
          accessorFn: (row: Cell[]) => row[f.idx],
          header: config.labels?.[f.name] ?? columnLabel(f),
          cell: (info) => {
            const value = info.getValue() as Cell;
            const text = formatCell(value, f, config.format, z);
            const href = cellHref(value);
            // Only absolute http(s) addresses become links; the click must not also follow a row drill-down.
            return href ? (
              <a
                href={href}
                target="_blank"
                rel="noopener noreferrer"
                className="table-link"
                onClick={(e) => e.stopPropagation()}
                onKeyDown={(e) => e.stopPropagation()}
              >
                {text}
              </a>
            ) : (
              text
            );
          },
          sortingFn: (a, b, id) => compareCells(a.getValue(id) as Cell, b.getValue(id) as Cell),
          sortUndefined: 'last',
          sortDescFirst: false,
          meta: { numeric: isNumericField(f) },
        } satisfies ColumnDef<Cell[]>;
      }),
    [fields, config.labels, config.format, data.rows, zone],
  );
  const [sorting, setSorting] = useState<SortingState>(config.sort ? [{ id: config.sort.column, desc: Boolean(config.sort.desc) }] : []);
  const table = useReactTable({
    data: data.rows,
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    enableSortingRemoval: true,
  });
  const rows = table.getRowModel().rows;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    initialRect: { width: 800, height: 360 },
  });
  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0]!.start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1]!.end : 0;
  // One page of a larger result (a dashboard tile pages it): totals add up this page; the tile's pager counts the rows.
  const onePage = data.row_count !== undefined && data.row_count > data.rows.length;
  const totals = config.totals?.length
    ? fields.map((f) => (config.totals!.includes(f.name) ? data.rows.reduce((s, r) => s + (toNumber(r[f.idx]) ?? 0), 0) : null))
    : null;

  return (
    <div
      className={`table-view table-view--${size}${config.wrap ? ' table-view--wrap' : ''}${config.freeze_first ? ' table-view--freeze' : ''}`}
      data-testid="table-view"
    >
      <div className="table-view__scroll" ref={scrollRef} tabIndex={0} role="region" aria-label={`${title}: ${data.rows.length} rows`}>
        <table>
          <thead>
            {table.getHeaderGroups().map((hg) => (
              <tr key={hg.id}>
                {hg.headers.map((h) => {
                  const sorted = h.column.getIsSorted();
                  const numeric = (h.column.columnDef.meta as { numeric?: boolean } | undefined)?.numeric;
                  return (
                    <th
                      key={h.id}
                      className={numeric ? 'num' : undefined}
                      aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
                    >
                      <button type="button" className="table-view__sort" onClick={h.column.getToggleSortingHandler()} data-testid={`sort-${h.id}`}>
                        {flexRender(h.column.columnDef.header, h.getContext())}
                        <span className="table-view__arrow" aria-hidden="true">
                          {sorted === 'asc' ? '↑' : sorted === 'desc' ? '↓' : ''}
                        </span>
                      </button>
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody>
            {padTop > 0 ? <tr aria-hidden="true" className="table-view__pad" style={{ height: padTop }} /> : null}
            {items.map((vi) => {
              const row = rows[vi.index]!;
              return (
                <tr
                  key={row.id}
                  data-index={vi.index}
                  style={{ height: rowHeight }}
                  {...(onDrill
                    ? {
                        className: 'table-view__drill',
                        tabIndex: 0,
                        title: 'Open the details',
                        'data-testid': 'drill-row',
                        onClick: () => onDrill(row.original as Cell[]),
                        onKeyDown: (e: KeyboardEvent<HTMLTableRowElement>) => {
                          if (e.key === 'Enter') onDrill(row.original as Cell[]);
                        },
                      }
                    : {})}
                >
                  {row.getVisibleCells().map((cell) => (
                    <td key={cell.id} className={(cell.column.columnDef.meta as { numeric?: boolean } | undefined)?.numeric ? 'num' : undefined}>
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </td>
                  ))}
                </tr>
              );
            })}
            {padBottom > 0 ? <tr aria-hidden="true" className="table-view__pad" style={{ height: padBottom }} /> : null}
          </tbody>
          {totals ? (
            <tfoot>
              <tr>
                {totals.map((t, i) => (
                  <td key={fields[i]!.name} className={t === null ? undefined : 'num'}>
                    {t === null ? (i === 0 ? (onePage ? 'Page total' : 'Total') : '') : formatNumber(t, config.format)}
                  </td>
                ))}
              </tr>
            </tfoot>
          ) : null}
        </table>
      </div>
      {onePage ? null : (
        <p className="table-view__count">
          {data.rows.length.toLocaleString('en')} {data.rows.length === 1 ? 'row' : 'rows'}
        </p>
      )}
    </div>
  );
}
