import { z } from '@hono/zod-openapi';
import { resourceObjectSchema } from '../../lib/openapi.ts';

const JOB_STATUSES = ['started', 'running', 'success', 'error'] as const;

export const ExportJob = resourceObjectSchema(
  'ExportJob',
  'export_jobs',
  z.object({
    job_status: z.enum(JOB_STATUSES).openapi({ description: 'started → running → success or error.' }),
    file_url: z.string().optional().openapi({ description: 'Only on success, while the file is kept: a short-lived URL (minutes) of the exported file.' }),
    error_message: z.string().optional().openapi({ description: 'Only on error.' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  }),
  ['dashboard', 'report'],
);
