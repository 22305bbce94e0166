/**
 * `GET /app/exports/{job}/file`: the file of a finished export job (PDF, PNG or CSV). The app asks the
 * API for the job (which decides access) and streams the file from the data server via its file_url.
 */
import type { Route } from './+types/app.exports.$id.file';
import { streamJobFile } from '../components/exports/exports.server';
import { downloadProblem } from '../components/sharing/download.server';
import { requireApi } from '../lib/api.server';
import type { ApiAnswer } from '../lib/types';
import { getEnv } from '../lib/env.server';

type JobDocument = ApiAnswer<'/export_jobs/{id}', 'get'>;

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const res = await api.call<JobDocument>('GET', `/export_jobs/${encodeURIComponent(params.id)}`);
  if (!res.ok) {
    if (res.problem.status === 401) throw api.toResponse(res.problem);
    return downloadProblem(res.problem.status >= 500 ? 503 : res.problem.status, res.problem.message);
  }
  const a = res.body.data.attributes;
  if (a.job_status === 'error') return downloadProblem(409, a.error_message ?? 'The export failed.');
  if (a.job_status !== 'success') return downloadProblem(409, 'The export is not finished yet.');
  if (!a.file_url) return downloadProblem(410, 'The file of this export has expired. Start a new export.');
  return streamJobFile(getEnv(context).DATA, a.file_url);
}
