/**
 * The dashboard's Download menu (header, next to Refresh): the dashboard as PDF or PNG with the filter
 * values in effect (an export job the app polls), and the data of every report as a zip of CSV files or
 * one Excel workbook. The data entries are offered when at least one report allows data downloads; the
 * API leaves the others out (and answers 204 when nothing is left: "nothing to download").
 */
import { useRef, useState } from 'react';
import { useDismiss } from '../../lib/use-dismiss';
import { ExportStatus } from './ExportStatus';
import { useExport } from './useExport';

export interface DashboardDownloadsProps {
  dashboardId: string;
  dashboardName: string;
  /** The filter parameters the dashboard is shown with. */
  parameters: unknown;
  /** Whether any report allows data downloads (data_download_enabled). */
  dataAllowed: boolean;
}

export function DashboardDownloads({ dashboardId, dashboardName, parameters, dataAllowed }: DashboardDownloadsProps) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, ref, () => setOpen(false));
  const exp = useExport();
  const image = (format: 'pdf' | 'png') => () => {
    setOpen(false);
    void exp.start({ kind: 'dashboard', id: dashboardId, format, parameters });
  };
  const data = (format: 'csv_zip' | 'xlsx') => () => {
    setOpen(false);
    void exp.downloadData(dashboardId, dashboardName, format, parameters);
  };
  return (
    <>
      <ExportStatus state={exp.state} note={exp.note} onDismiss={exp.dismiss} testId="dashboard-export-status" />
      <div className="menu" ref={ref}>
        <button
          type="button"
          className="button button--small"
          aria-haspopup="menu"
          aria-expanded={open}
          onClick={() => setOpen((o) => !o)}
          disabled={exp.busy}
          data-testid="dashboard-downloads"
          title="Download the dashboard or its data"
        >
          ⤓ Download
        </button>
        {open ? (
          <div className="menu__panel export-menu" role="menu" aria-label="Download">
            <button type="button" role="menuitem" onClick={image('pdf')} data-testid="dashboard-download-pdf">
              PDF
            </button>
            <button type="button" role="menuitem" onClick={image('png')} data-testid="dashboard-download-png">
              PNG image
            </button>
            {dataAllowed ? (
              <>
                <button type="button" role="menuitem" onClick={data('csv_zip')} data-testid="dashboard-download-csv-zip">
                  All reports: CSV (zip)
                </button>
                <button type="button" role="menuitem" onClick={data('xlsx')} data-testid="dashboard-download-xlsx">
                  All reports: Excel
                </button>
              </>
            ) : null}
          </div>
        ) : null}
      </div>
    </>
  );
}
