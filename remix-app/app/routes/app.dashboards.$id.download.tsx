/**
 * `GET /app/dashboards/{id}/download?format=csv_zip|xlsx&parameters=<json>`: every report's data of the
 * dashboard as one file (a zip of CSV files or one workbook). The API decides (View Dashboards; reports
 * with data_download_enabled off are left out): 204 when no report has rows. The reports left out are
 * named in the `X-Cairn-Skipped` header (URI-encoded JSON list).
 */
import type { Route } from './+types/app.dashboards.$id.download';
import { streamProcess } from '../components/exports/exports.server';
import { downloadProblem } from '../components/sharing/download.server';
import { requireApi } from '../lib/api.server';
import { getEnv } from '../lib/env.server';

interface DataHandle {
  data_process_token: string;
  skipped?: { name: string }[];
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const format = url.searchParams.get('format');
  if (format !== 'csv_zip' && format !== 'xlsx') return downloadProblem(400, 'Choose format=csv_zip or format=xlsx.');
  let parameters: unknown;
  try {
    parameters = url.searchParams.has('parameters') ? JSON.parse(url.searchParams.get('parameters')!) : undefined;
  } catch {
    return downloadProblem(400, 'parameters must be JSON.');
  }
  const api = requireApi(request, context);
  const res = await api.call<DataHandle>('POST', `/dashboards/${encodeURIComponent(params.id)}/data`, {
    body: { data_format: format, ...(parameters && typeof parameters === 'object' ? { parameters } : {}) },
  });
  if (!res.ok) {
    if (res.problem.status === 401) throw api.toResponse(res.problem);
    return downloadProblem(res.problem.status >= 500 ? 503 : res.problem.status, res.problem.message);
  }
  if (res.status === 204 || !res.body) return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
  const skipped = (res.body.skipped ?? []).map((s) => s.name);
  return streamProcess(getEnv(context).DATA, res.body.data_process_token, skipped);
}
