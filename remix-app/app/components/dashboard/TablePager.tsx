/**
 * A table tile's pages: the poll fetched the first TABLE_PAGE_ROWS rows (lib/tile-rows.ts); Next and
 * Previous fetch the other pages from the data server, one at a time, with the tile's latest data
 * access token. The browser never holds more than one page of a large result.
 */
import { useEffect, useState } from 'react';
import type { ResultData, TileState } from '../../lib/dashboard-status';
import { dataPageUrl, TABLE_PAGE_ROWS } from '../../lib/tile-rows';
import './table-pager.css';

interface PageState {
  key: string | null;
  offset: number;
  data: ResultData | null;
  loading: boolean;
  error: string | null;
}

/** The rows a table tile shows (the first page, or the page the viewer moved to) and the pager's state. */
export function useTablePage(state: TileState, enabled: boolean) {
  const [page, setPage] = useState<PageState>({ key: state.dataKey, offset: 0, data: null, loading: false, error: null });
  // New data (other filters, a refresh): back to its first page.
  useEffect(() => setPage({ key: state.dataKey, offset: 0, data: null, loading: false, error: null }), [state.dataKey]);
  const first = state.result;
  const total = first?.row_count ?? first?.rows.length ?? 0;
  const paged = enabled && first !== null && first.row_count !== undefined && total > first.rows.length;
  const current = page.key === state.dataKey && page.data ? page.data : first;

  const go = async (offset: number) => {
    const key = state.dataKey;
    if (!key || !state.dataToken) return;
    if (offset === 0) return setPage({ key, offset: 0, data: null, loading: false, error: null });
    setPage((p) => ({ ...p, loading: true, error: null }));
    try {
      const res = await fetch(dataPageUrl(key, offset, TABLE_PAGE_ROWS), { headers: { Authorization: `Data ${state.dataToken}`, Accept: 'application/json' } });
      const body = (await res.json().catch(() => null)) as (ResultData & { errors?: { code?: string; detail?: string }[] }) | null;
      if (!res.ok || !body || !Array.isArray(body.rows)) {
        const expired = body?.errors?.[0]?.code === 'data_token_expired';
        throw new Error(
          expired
            ? 'This page could not be loaded: the access to the result expired. Refresh the dashboard.'
            : body?.errors?.[0]?.detail || `The data server answered ${res.status}.`,
        );
      }
      setPage({ key, offset, data: body, loading: false, error: null });
    } catch (err) {
      setPage((p) => ({ ...p, loading: false, error: err instanceof Error ? err.message : String(err) }));
    }
  };
  return { paged, data: current, offset: page.key === state.dataKey ? page.offset : 0, total, loading: page.loading, error: page.error, go };
}

export function TablePager({ pager }: { pager: ReturnType<typeof useTablePage> }) {
  const { offset, total, data, loading, error, go } = pager;
  const shown = data?.rows.length ?? 0;
  const fmt = (n: number) => n.toLocaleString('en-US');
  const from = shown ? offset + 1 : Math.min(offset, total);
  return (
    <nav className="tile__pager" aria-label="Table pages" data-testid="table-pager" aria-busy={loading}>
      <button
        type="button"
        className="tile__pager-button"
        onClick={() => void go(Math.max(0, offset - TABLE_PAGE_ROWS))}
        disabled={loading || offset === 0}
        data-testid="table-previous"
      >
        ‹ Previous
      </button>
      <span className="tile__pager-range" data-testid="table-range" aria-live="polite">
        Rows {fmt(from)}–{fmt(offset + shown)} of {fmt(total)}
      </span>
      <button
        type="button"
        className="tile__pager-button"
        onClick={() => void go(offset + TABLE_PAGE_ROWS)}
        disabled={loading || offset + shown >= total}
        data-testid="table-next"
      >
        Next ›
      </button>
      {error ? (
        <span className="tile__pager-error" role="alert">
          {error}
        </span>
      ) : null}
    </nav>
  );
}
