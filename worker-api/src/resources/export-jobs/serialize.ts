import type { exportJobs } from '@cairn/db';
import { resource, toOne } from '../../lib/jsonapi.ts';

type JobRow = typeof exportJobs.$inferSelect;

/** file_url appears only on success (and while the file is kept), error_message only on error. */
export function serializeExportJob(baseUrl: string, j: JobRow, fileUrl: string | null) {
  return resource(
    baseUrl,
    'export_jobs',
    j.id,
    {
      job_status: j.job_status,
      ...(j.job_status === 'success' && fileUrl ? { file_url: fileUrl } : {}),
      ...(j.job_status === 'error' ? { error_message: j.error_message ?? 'The export failed.' } : {}),
      created_at: j.created_at.toISOString(),
      updated_at: j.updated_at.toISOString(),
    },
    { dashboard: toOne('dashboards', j.dashboard_id), report: toOne('reports', j.report_id) },
  );
}
