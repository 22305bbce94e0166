import { z } from '@hono/zod-openapi';
import { EXECUTION_STATUSES } from '@cairn/db';
import { inputParametersSchema } from '../reports/schema.ts';

export const runBody = z
  .object({
    sql_query: z.string().min(1).max(1_000_000).openapi({ example: 'select status, count(*) from orders where {created_at=timerange} group by 1' }),
    r_query: z
      .string()
      .max(1_000_000)
      .nullable()
      .optional()
      .openapi({ description: 'Not supported: R post-processing is not available in Cairn; a non-empty value is refused.' }),
    parameters: inputParametersSchema.optional(),
    dashboard_id: z.string().min(1).max(64).optional().openapi({
      description:
        'Read `parameters` with this dashboard’s filters (their value types and aggregations) and time-zone settings, as its reports are run; the report editor sends the dashboard it edits. Without it, filter variables have no definition and count as unset.',
    }),
  })
  .strict()
  .openapi('ExecutionRequest');

export const Execution = z
  .object({
    execution_id: z.string(),
    execution_type: z.enum(['sql_query', 'sql_filter', 'sql_alert', 'almanach_query', 'export_query']),
    execution_status: z.enum(EXECUTION_STATUSES),
    result_columns: z.number().int().nullable(),
    result_rows: z.number().int().nullable(),
    result_size: z.number().int().nullable(),
    error_message: z.string().nullable().openapi({ description: 'The database’s message for query_error, timed_out and internal_error.' }),
    created_at: z.string(),
    updated_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
  })
  .openapi('Execution');
