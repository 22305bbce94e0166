/**
 * The editor's Data tab: the result in pages of 2,000 rows (the first comes with the run; Next and
 * Previous fetch the others from `/app/reports/executions/{id}/data?offset=…`), and Download of the
 * whole result of this run as CSV or XLSX (`/app/reports/executions/{id}/download`) — saved or not.
 */
import { useEffect, useState } from 'react';
import { ChartBody } from '../charts/ChartBody';
import type { RowsAnswer } from '../../lib/editor-execution';

type Ok = Extract<RowsAnswer, { status: 'ok' }>;

interface Props {
  executionId: string;
  first: Ok;
  palette: string[];
  zone?: string;
  /** The name the downloaded file takes (the report's, else "Query results"). */
  downloadName: string;
}

const PAGE_ROWS = 2000;

export function pageLabel(offset: number, shown: number, total: number): string {
  const n = (x: number) => x.toLocaleString('en');
  return `Rows ${n(offset + 1)}–${n(offset + shown)} of ${n(total)}`;
}

export function downloadHref(executionId: string, format: 'csv' | 'xlsx', name: string): string {
  const q = new URLSearchParams({ format, name });
  return `/app/reports/executions/${encodeURIComponent(executionId)}/download?${q}`;
}

export function ResultPages({ executionId, first, palette, zone, downloadName }: Props) {
  const [page, setPage] = useState<Ok>(first);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setPage(first);
    setError(null);
  }, [first]);
  const offset = page.offset ?? 0;
  const total = page.rowCount;
  const go = async (to: number) => {
    setLoading(true);
    setError(null);
    try {
      const res = await fetch(`/app/reports/executions/${encodeURIComponent(executionId)}/data?offset=${to}`, { headers: { Accept: 'application/json' } });
      const body = (await res.json().catch(() => null)) as (RowsAnswer & { errors?: { detail?: string }[] }) | null;
      if (res.ok && body?.status === 'ok') setPage({ ...body, offset: body.offset ?? to });
      else setError((body && 'message' in body ? body.message : body?.errors?.[0]?.detail) ?? `The rows could not be fetched (${res.status}).`);
    } catch {
      setError('The rows could not be fetched. Check your connection and try again.');
    } finally {
      setLoading(false);
    }
  };
  return (
    <div className="result-pages">
      <div className="result-pages__bar" data-testid="result-pager">
        <span data-testid="result-page-label">{pageLabel(offset, page.rows.length, total)}</span>
        {total > PAGE_ROWS ? (
          <>
            <button
              type="button"
              className="button button--small button--ghost"
              disabled={loading || offset === 0}
              onClick={() => void go(Math.max(0, offset - PAGE_ROWS))}
              data-testid="result-prev"
            >
              ← Previous
            </button>
            <button
              type="button"
              className="button button--small button--ghost"
              disabled={loading || offset + PAGE_ROWS >= total}
              onClick={() => void go(offset + PAGE_ROWS)}
              data-testid="result-next"
            >
              Next →
            </button>
          </>
        ) : null}
        {loading ? (
          <span className="muted small" role="status">
            Fetching rows…
          </span>
        ) : null}
        <span className="result-pages__download">
          <span className="muted small">Download the whole result:</span>{' '}
          <a className="button button--small" href={downloadHref(executionId, 'csv', downloadName)} download data-testid="result-download-csv">
            CSV
          </a>{' '}
          <a className="button button--small" href={downloadHref(executionId, 'xlsx', downloadName)} download data-testid="result-download-xlsx">
            XLSX
          </a>
        </span>
      </div>
      {error ? (
        <p className="field__error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="result-table" data-testid="result-table" data-offset={offset}>
        <ChartBody
          reportId="preview-data"
          config={{ type: 'table' }}
          data={{ fields: page.fields, rows: page.rows, data_timestamp: page.dataTimestamp }}
          palette={palette}
          title="Result"
          zone={zone}
        />
      </div>
    </div>
  );
}
