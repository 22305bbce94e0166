import { z } from '@hono/zod-openapi';
import { CSV_COLUMN_SEPARATORS, CSV_DECIMAL_SEPARATORS, CSV_QUOTE_STYLES, PROCESS_FORMATS } from '@cairn/core/export/options';
import { inputParametersSchema } from '../reports/schema.ts';

export const dashboardDataBody = z
  .object({
    parameters: inputParametersSchema.optional(),
    data_format: z.enum(PROCESS_FORMATS).default('json').openapi({
      description: 'json: one document keyed by report id; csv_zip: a zip with one CSV per report; xlsx: one workbook with a sheet per report.',
    }),
    csv_column_separator: z.enum(CSV_COLUMN_SEPARATORS).default('comma'),
    csv_decimal_separator: z.enum(CSV_DECIMAL_SEPARATORS).default('point').openapi({
      description: 'Applied to numbers (Integer, BigInt, Float fields). `comma` needs csv_column_separator semicolon or tab.',
    }),
    csv_quote_style: z.enum(CSV_QUOTE_STYLES).default('necessary').openapi({
      description: 'necessary: quote fields holding the separator, a double quote or a line break; always: quote every field (NULL stays empty).',
    }),
  })
  .strict()
  .openapi('DashboardDataRequest');

export type DashboardDataBody = z.infer<typeof dashboardDataBody>;

export const dashboardDataHandle = z
  .object({
    data_process_token: z
      .string()
      .openapi({ description: 'Send it as `data_access_token` to `POST /process` on the data server of the same region within 5 minutes.' }),
    data_url: z.string().openapi({ description: "The data server's Process Data URL.", example: 'https://data.example.test/process' }),
    reports: z
      .array(
        z.object({
          report_id: z.string(),
          name: z.string(),
          data_key: z.string(),
          execution_id: z.string(),
          row_count: z.number().int(),
        }),
      )
      .openapi({ description: 'The reports in the download, in layout order.' }),
    skipped: z
      .array(
        z.object({
          report_id: z.string(),
          name: z.string(),
          reason: z.enum(['data_download_disabled', 'query_error', 'unavailable']).openapi({
            description:
              "data_download_disabled: the report's data downloads are off; query_error: its query failed; unavailable: its datasource is disabled or gone, or the run failed.",
          }),
          detail: z.string().optional(),
        }),
      )
      .openapi({ description: 'Reports left out of the download, with the reason.' }),
  })
  .openapi('DashboardDataHandle');
