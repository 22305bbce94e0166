/**
 * `GET /s/{token}/download/{reportId}?format=csv|xlsx&name=…&query=…&parameters=…`: one report of a
 * sharing link as a file, when the link and the report allow downloads (the API decides: 403 otherwise).
 */
import type { Route } from './+types/s.$token.download';
import { downloadProblem, parseFormat, streamFile } from '../components/sharing/download.server';
import { publicCall, publicLinkApiPath } from '../components/sharing/public-link.server';
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
  const res = await publicCall<{ data_key: string; data_access_token: string }>(
    request,
    context,
    params.token,
    publicLinkApiPath(params.token, `/reports/${encodeURIComponent(params.reportId)}/data`),
    { query: url.searchParams.get('query') ?? '', data_format: format, ...(parameters && typeof parameters === 'object' ? { parameters } : {}) },
  );
  if (!res.ok) return downloadProblem(res.problem.status >= 500 ? 503 : res.problem.status, res.problem.message);
  if (res.status === 204 || !res.body) return new Response(null, { status: 204 });
  return streamFile(getEnv(context).DATA, res.body, format, url.searchParams.get('name') ?? params.reportId);
}
