import { z } from '@hono/zod-openapi';
import { AGGREGATIONS } from '@cairn/core';

export const inputParametersSchema = z
  .object({
    timerange: z.string().max(64).optional().openapi({ description: 'start~end as unix seconds; either side may be empty.', example: '1717200000~1719792000' }),
    aggregation: z.enum(AGGREGATIONS).optional(),
    tz: z.string().max(64).optional().openapi({ example: 'Europe/Berlin' }),
    filters: z
      .array(z.object({ variable_name: z.string().min(1).max(128), selected_values: z.array(z.unknown()).max(10_000) }).strict())
      .max(200)
      .optional(),
  })
  .strict()
  .openapi('InputParameters');

export const reportDataBody = z
  .object({
    parameters: inputParametersSchema.optional(),
    data_format: z.enum(['json', 'csv', 'xlsx']).default('json'),
  })
  .strict()
  .openapi('ReportDataRequest');

export const dataHandle = z
  .object({
    data_key: z.string().openapi({ example: 'eu/org_x/exe_y/0a1b2c3d4e5f6a7b' }),
    data_access_token: z.string(),
    data_url: z.string().openapi({ description: 'Where to fetch it: the data server of the same region.' }),
    execution_id: z.string(),
  })
  .openapi('DataHandle');
