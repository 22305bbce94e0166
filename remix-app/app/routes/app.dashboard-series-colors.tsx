/**
 * `POST /app/dashboards/{id}/series-colors` with `{values}`: the series values a chart of the dashboard
 * shows for the first time, handed to the API's colour map (POST /dashboards/{id}/series_colors, asked
 * as the signed-in user) → `{series_colors}`. Errors come back as `{error: {status, code, message}}`.
 */
import type { Route } from './+types/app.dashboard-series-colors';
import { requireApi } from '../lib/api.server';

export async function action({ request, context, params }: Route.ActionArgs) {
  if (request.method !== 'POST') return Response.json({ error: { status: 405, code: 'method_not_allowed', message: 'Use POST.' } }, { status: 405 });
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return Response.json({ error: { status: 400, code: 'malformed_json', message: 'The body must be JSON.' } }, { status: 400 });
  }
  const values = body && typeof body === 'object' ? (body as { values?: unknown }).values : undefined;
  const api = requireApi(request, context);
  const res = await api.call('POST', `/dashboards/${encodeURIComponent(params.id)}/series_colors`, { body: { values } });
  if (res.ok) return Response.json(res.body, { headers: { 'Cache-Control': 'no-store' } });
  return Response.json({ error: res.problem }, { status: res.problem.status >= 500 ? 503 : res.problem.status });
}

export function loader() {
  return Response.json({ error: { status: 405, code: 'method_not_allowed', message: 'Use POST.' } }, { status: 405 });
}
