/**
 * `GET /app/reports/executions/{id}/download?format=csv|xlsx&name=<file name>`: the whole result of an
 * editor run as a file — also of SQL not saved yet. The API decides who may read the execution
 * (`GET /executions/{id}/data?data_format=…`: 404 for others, 403 when the report's downloads are off);
 * without rows the answer is 204.
 */
import type { Route } from './+types/app.reports.execution-download';
import { downloadProblem, parseFormat, streamFile } from '../components/sharing/download.server';
import { requireApi } from '../lib/api.server';
import { getEnv } from '../lib/env.server';

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const format = parseFormat(url.searchParams.get('format'));
  if (!format) return downloadProblem(400, 'Choose format=csv or format=xlsx.');
  const api = requireApi(request, context);
  const res = await api.call<{ data_key: string; data_access_token: string }>('GET', `/executions/${encodeURIComponent(params.id)}/data?data_format=${format}`);
  if (!res.ok) {
    if (res.problem.status === 401) throw api.toResponse(res.problem);
    return downloadProblem(res.problem.status >= 500 ? 503 : res.problem.status, res.problem.message);
  }
  if (res.status === 204 || !res.body) return new Response(null, { status: 204 });
  return streamFile(getEnv(context).DATA, res.body, format, url.searchParams.get('name') || 'Query results');
}
