/** The answer of the dashboard status poll (POST /dashboards/{id}/status). */
import { z } from '@hono/zod-openapi';

const entry = {
  result_status: z.enum(['success', 'no_data', 'running', 'error']),
  data_key: z.string().nullable(),
  data_access_token: z.string().nullable().openapi({ description: 'For GET /data/{data_key} on this region’s data server; expires within minutes.' }),
  data_timestamp: z.string().nullable(),
  data_current: z.boolean().openapi({ description: 'The data is within the refresh rate.' }),
  execution_id: z.string().nullable(),
  execution_status: z.string().nullable(),
  running: z.boolean().openapi({ description: 'A newer result is being computed (older data may be shown meanwhile).' }),
  row_count: z.number().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
};
/** One entry's fields as the answer types them (the status object keeps its entries in this shape, D80). */
export type StatusFields = z.infer<z.ZodObject<typeof entry>>;

/** The status poll's answer; sharing links and the print view of exports answer the same shape (to their viewers). */
export const DashboardStatus = z
  .object({
    reports: z.array(z.object({ report_id: z.string(), ...entry })),
    filters: z.array(z.object({ filter_id: z.string(), ...entry })),
    data_keys: z.array(z.object({ ...entry, data_key: z.string(), report_id: z.string().optional(), filter_id: z.string().optional() })),
    updated_at: z.string(),
    status_check_delay: z
      .number()
      .int()
      .openapi({ description: 'Seconds to wait before the next poll: 60 when everything is settled, less while something runs.' }),
  })
  .openapi('DashboardStatus');
