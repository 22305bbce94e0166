/**
 * The downloads of a report's menu: CSV and Excel links, shown only when the report's switches allow
 * them (download_actions_enabled and data_download_enabled) and, on a sharing link, the link's too.
 * `base` is `/app/reports/{id}/download` in the app or `/s/{token}/download/{id}` on a public link.
 * Each link carries the filter parameters the report is shown with, so the file holds the same rows.
 */
export interface DownloadMenuProps {
  base: string;
  reportName: string;
  /** The filter parameters the report is shown with (JSON-serializable). */
  parameters?: unknown;
  /** Extra query parameters to keep (a public link's own query: signature, filter values). */
  keep?: string;
  allowed: boolean;
  /** 'buttons': two small buttons side by side; 'menu': two items of a tile's menu. */
  layout?: 'buttons' | 'menu';
}

export function downloadHref(base: string, format: 'csv' | 'xlsx', reportName: string, parameters?: unknown, keep?: string): string {
  const q = new URLSearchParams(keep ?? '');
  q.set('format', format);
  q.set('name', reportName);
  if (parameters !== undefined) q.set('parameters', JSON.stringify(parameters));
  return `${base}?${q.toString()}`;
}

export function DownloadMenu({ base, reportName, parameters, keep, allowed, layout = 'buttons' }: DownloadMenuProps) {
  if (!allowed) return null;
  if (layout === 'menu') {
    return (
      <>
        <a role="menuitem" href={downloadHref(base, 'csv', reportName, parameters, keep)} download data-testid="download-csv">
          Download CSV
        </a>
        <a role="menuitem" href={downloadHref(base, 'xlsx', reportName, parameters, keep)} download data-testid="download-xlsx">
          Download Excel
        </a>
      </>
    );
  }
  return (
    <span className="download-menu" role="group" aria-label={`Download ${reportName}`}>
      <a className="button button--small button--ghost" href={downloadHref(base, 'csv', reportName, parameters, keep)} download data-testid="download-csv">
        CSV
      </a>
      <a className="button button--small button--ghost" href={downloadHref(base, 'xlsx', reportName, parameters, keep)} download data-testid="download-xlsx">
        Excel
      </a>
    </span>
  );
}
