/**
 * `GET /app/reports/{id}/download?format=csv|xlsx&parameters=<json>&name=<report name>`: the report's
 * data as a file, for the report menu. The API decides (View Dashboards on the dashboard, the report's
 * data_download_enabled: 403 otherwise); without rows the answer is 204.
 */
import type { Route } from './+types/app.reports.$id.download';
import { downloadProblem, parseFormat, streamFile } from '../components/sharing/download.server';
import { requireApi } from '../lib/api.server';
import { getEnv } from '../lib/env.server';

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const format = parseFormat(url.searchParams.get('format'));
  if (!format) return downloadProblem(400, 'Choose format=csv or format=xlsx.');
  let parameters: unknown;
  try {
    parameters = url.searchParams.has('parameters') ? JSON.parse(url.searchParams.get('parameters')!) : undefined;
  } catch {
    return downloadProblem(400, 'parameters must be JSON.');
  }
  const api = requireApi(request, context);
  const res = await api.call<{ data_key: string; data_access_token: string }>('POST', `/reports/${encodeURIComponent(params.id)}/data`, {
    body: { data_format: format, ...(parameters && typeof parameters === 'object' ? { parameters } : {}) },
  });
  if (!res.ok) {
    if (res.problem.status === 401) throw api.toResponse(res.problem);
    return downloadProblem(res.problem.status >= 500 ? 503 : res.problem.status, res.problem.message);
  }
  if (res.status === 204 || !res.body) return new Response(null, { status: 204 });
  return streamFile(getEnv(context).DATA, res.body, format, url.searchParams.get('name') ?? params.id);
}
