/**
 * The export entries of a report's tile menu in the app: PNG and PDF of the single report (when its
 * download_actions_enabled is on) and, with unlimited_csv_export_enabled, "Full CSV (all rows)" — an
 * export job the API starts at most once per 10 minutes for the same parameters (it answers the recent
 * job instead). `run` is the tile's useExport start, so the status stays after the menu closes.
 */
import type { JobRequest } from './useExport';

export interface ReportExportsProps {
  reportId: string;
  parameters?: unknown;
  images: boolean;
  unlimitedCsv: boolean;
  disabled: boolean;
  run: (req: JobRequest) => void;
}

export function ReportExports({ reportId, parameters, images, unlimitedCsv, disabled, run }: ReportExportsProps) {
  const go =
    (format: 'png' | 'pdf' | 'csv', unlimited = false) =>
    () =>
      run({ kind: 'report', id: reportId, format, parameters, ...(unlimited ? { unlimited } : {}) });
  return (
    <>
      {images ? (
        <>
          <button type="button" role="menuitem" onClick={go('png')} disabled={disabled} data-testid="download-png">
            Download PNG
          </button>
          <button type="button" role="menuitem" onClick={go('pdf')} disabled={disabled} data-testid="download-pdf">
            Download PDF
          </button>
        </>
      ) : null}
      {unlimitedCsv ? (
        <button
          type="button"
          role="menuitem"
          onClick={go('csv', true)}
          disabled={disabled}
          data-testid="download-full-csv"
          title="Every row, not only the first 100,000. One new file per 10 minutes for the same filters; a repeat gets the recent file."
        >
          Full CSV (all rows)
        </button>
      ) : null}
    </>
  );
}
