/**
 * `GET /app/reports/executions/{id}`: the execution's status for the editor's progress line;
 * `POST` cancels it (`POST /executions/{id}/cancel`, always 204 from the API).
 */
import type { Route } from './+types/app.reports.execution';
import { requireApi } from '../lib/api.server';
import { errorItems } from '../lib/editor.server';

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const res = await requireApi(request, context).raw('GET', `/executions/${encodeURIComponent(params.id)}`);
  if (res.status >= 200 && res.status < 300) return Response.json(res.body, { headers: { 'Cache-Control': 'no-store' } });
  return Response.json({ errors: errorItems(res.status, res.body) }, { status: res.status >= 500 ? 503 : res.status });
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const res = await requireApi(request, context).raw('POST', `/executions/${encodeURIComponent(params.id)}/cancel`);
  if (res.status >= 200 && res.status < 300) return new Response(null, { status: 204 });
  return Response.json({ errors: errorItems(res.status, res.body) }, { status: res.status >= 500 ? 503 : res.status });
}
