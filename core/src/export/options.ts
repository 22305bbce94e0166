import { ApiError } from '../errors.ts';

/** Download formats of one result (`POST /reports/{id}/data`) and of a dashboard (`POST /dashboards/{id}/data`). */
export const DATA_FORMATS = ['json', 'csv', 'xlsx'] as const;
export type DataFormat = (typeof DATA_FORMATS)[number];
export const PROCESS_FORMATS = ['json', 'csv_zip', 'xlsx'] as const;
export type ProcessFormat = (typeof PROCESS_FORMATS)[number];

export const CSV_COLUMN_SEPARATORS = ['comma', 'semicolon', 'tab'] as const;
export const CSV_DECIMAL_SEPARATORS = ['point', 'comma', 'slash'] as const;
export const CSV_QUOTE_STYLES = ['necessary', 'always'] as const;

export interface CsvOptions {
  column_separator: (typeof CSV_COLUMN_SEPARATORS)[number];
  decimal_separator: (typeof CSV_DECIMAL_SEPARATORS)[number];
  quote_style: (typeof CSV_QUOTE_STYLES)[number];
}

export const DEFAULT_CSV_OPTIONS: CsvOptions = Object.freeze({
  column_separator: 'comma',
  decimal_separator: 'point',
  quote_style: 'necessary',
});

export const COLUMN_SEPARATOR_BYTE = { comma: 0x2c, semicolon: 0x3b, tab: 0x09 } as const;
export const DECIMAL_SEPARATOR_BYTE = { point: 0x2e, comma: 0x2c, slash: 0x2f } as const;

/**
 * The options as a download call sends them (`csv_column_separator`, …), defaults filled in.
 * A decimal comma needs another column separator: comma + comma would make every number two
 * columns, so it is refused (422) when the token is asked for, not when the file is written.
 */
export function csvOptionsFrom(body: {
  csv_column_separator?: CsvOptions['column_separator'];
  csv_decimal_separator?: CsvOptions['decimal_separator'];
  csv_quote_style?: CsvOptions['quote_style'];
}): CsvOptions {
  const opts: CsvOptions = {
    column_separator: body.csv_column_separator ?? DEFAULT_CSV_OPTIONS.column_separator,
    decimal_separator: body.csv_decimal_separator ?? DEFAULT_CSV_OPTIONS.decimal_separator,
    quote_style: body.csv_quote_style ?? DEFAULT_CSV_OPTIONS.quote_style,
  };
  if (COLUMN_SEPARATOR_BYTE[opts.column_separator] === DECIMAL_SEPARATOR_BYTE[opts.decimal_separator]) {
    throw new ApiError(
      'invalid_attribute',
      'csv_decimal_separator "comma" needs csv_column_separator "semicolon" or "tab": with commas for both, numbers would split into two columns.',
      { source: { pointer: '/csv_decimal_separator' } },
    );
  }
  return opts;
}
