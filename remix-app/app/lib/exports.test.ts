import { describe, expect, it } from 'vitest';
import { dataFileName, dispositionFileName, errorText, exportMessage, formatLabel, isPending, nextPollDelay, skippedNote } from './exports';

describe('export job state as the UI says it', () => {
  it('names the formats', () => {
    expect(formatLabel('pdf')).toBe('PDF');
    expect(formatLabel('png')).toBe('PNG');
    expect(formatLabel('csv')).toBe('CSV');
    expect(formatLabel('csv', true)).toBe('full CSV');
    expect(formatLabel('csv_zip')).toBe('CSV files');
    expect(formatLabel('xlsx')).toBe('Excel workbook');
  });

  it('shows progress, success, nothing to download and the failure', () => {
    expect(exportMessage({ phase: 'idle' })).toBeNull();
    expect(exportMessage({ phase: 'starting', label: 'PDF' })).toBe('Preparing PDF…');
    expect(exportMessage({ phase: 'waiting', label: 'PNG', jobId: 'j', reused: false })).toBe('Preparing PNG…');
    expect(exportMessage({ phase: 'waiting', label: 'full CSV', jobId: 'j', reused: true })).toBe(
      'Preparing full CSV… (a file started in the last 10 minutes is reused)',
    );
    expect(exportMessage({ phase: 'done', label: 'PDF', reused: false })).toBe('Downloaded the PDF.');
    expect(exportMessage({ phase: 'done', label: 'full CSV', reused: true })).toBe('Downloaded the full CSV started in the last 10 minutes.');
    expect(exportMessage({ phase: 'empty', label: 'CSV files' })).toMatch(/^Nothing to download/);
    expect(exportMessage({ phase: 'failed', label: 'PDF', message: 'No renderer is configured.' })).toBe(
      'The PDF could not be made: No renderer is configured.',
    );
  });

  it('polls while the job is started or running, slower after the first seconds', () => {
    expect(isPending('started')).toBe(true);
    expect(isPending('running')).toBe(true);
    expect(isPending('success')).toBe(false);
    expect(isPending('error')).toBe(false);
    expect(nextPollDelay(0)).toBe(1000);
    expect(nextPollDelay(5)).toBe(1000);
    expect(nextPollDelay(7)).toBe(2000);
    expect(nextPollDelay(100)).toBe(5000);
  });
});

describe('file names and answers of the download routes', () => {
  it('reads the file name of a Content-Disposition header, filename* first', () => {
    expect(dispositionFileName(`attachment; filename="Sales.zip"; filename*=UTF-8''Ums%C3%A4tze.zip`, 'x.zip')).toBe('Umsätze.zip');
    expect(dispositionFileName('attachment; filename="Sales.zip"', 'x.zip')).toBe('Sales.zip');
    expect(dispositionFileName('attachment; filename=plain.pdf', 'x')).toBe('plain.pdf');
    expect(dispositionFileName(null, 'fallback.xlsx')).toBe('fallback.xlsx');
    expect(dispositionFileName('attachment', 'fallback.xlsx')).toBe('fallback.xlsx');
  });

  it('builds a safe fallback name of a dashboard', () => {
    expect(dataFileName('Sales / 2026: "EU"', 'csv_zip')).toBe('Sales 2026 EU.zip');
    expect(dataFileName('???', 'xlsx')).toBe('dashboard.xlsx');
  });

  it('takes the message of JSON errors, plain text, or a default', () => {
    expect(errorText(422, JSON.stringify({ error: { status: 422, code: 'invalid_state', message: 'Unlimited CSV export is switched off.' } }))).toBe(
      'Unlimited CSV export is switched off.',
    );
    expect(errorText(403, 'Data downloads are switched off for this report.\n')).toBe('Data downloads are switched off for this report.');
    expect(errorText(403, '')).toBe('You may not download this.');
    expect(errorText(500, '')).toBe('The request failed with status 500.');
  });

  it('names the reports a data download left out', () => {
    expect(skippedNote(encodeURIComponent(JSON.stringify(['Orders', 'Café'])))).toBe('Left out (downloads off or no data): “Orders”, “Café”.');
    expect(skippedNote(encodeURIComponent('[]'))).toBeNull();
    expect(skippedNote(null)).toBeNull();
    expect(skippedNote('%E0%A4%A')).toBeNull();
  });
});
