/**
 * `GET /app/exports/{job}`: the export job's state for the browser's poll — `{job_status, error_message}`
 * (the file's address stays on the server; fetch it from `/app/exports/{job}/file`).
 */
import type { Route } from './+types/app.exports.$id';
import { requireApi } from '../lib/api.server';
import type { ApiAnswer } from '../lib/types';

type JobDocument = ApiAnswer<'/export_jobs/{id}', 'get'>;

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const res = await api.call<JobDocument>('GET', `/export_jobs/${encodeURIComponent(params.id)}`);
  if (!res.ok) return Response.json({ error: res.problem }, { status: res.problem.status >= 500 ? 503 : res.problem.status });
  const a = res.body.data.attributes;
  return Response.json(
    { job_status: a.job_status, ...(a.error_message ? { error_message: a.error_message } : {}) },
    { headers: { 'Cache-Control': 'no-store' } },
  );
}
