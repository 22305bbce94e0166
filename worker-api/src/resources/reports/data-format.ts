import { DEFAULT_CSV_OPTIONS } from '@cairn/core/export/options';
import type { DataFormat } from '@cairn/core/export/options';
import type { DataTokenClaims } from '@cairn/core';

/**
 * What a report's data access token says about the download: nothing for json (the data server's
 * default), else the format, the report's name for the file and, for csv, the CSV options (the
 * report call takes none, so the defaults: comma, point, necessary).
 */
export function downloadClaims(format: DataFormat, reportName: string): Pick<DataTokenClaims, 'format' | 'csv' | 'name'> {
  if (format === 'json') return {};
  return { format, name: reportName, ...(format === 'csv' ? { csv: { ...DEFAULT_CSV_OPTIONS } } : {}) };
}
