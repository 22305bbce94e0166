/**
 * Resource route the dashboard page polls: `POST /app/dashboards/{id}/status` with
 * `{parameters, refresh_data}` → the API's DashboardStatus, asked as the signed-in user. Errors come back
 * as `{error: {status, code, message}}` with the API's status, so the page can show them in place.
 */
import type { Route } from './+types/app.dashboard-status';
import { requireApi } from '../lib/api.server';

export async function action({ request, context, params }: Route.ActionArgs) {
  if (request.method !== 'POST') return Response.json({ error: { status: 405, code: 'method_not_allowed', message: 'Use POST.' } }, { status: 405 });
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return Response.json({ error: { status: 400, code: 'malformed_json', message: 'The body must be JSON.' } }, { status: 400 });
  }
  const { parameters, refresh_data } = (body && typeof body === 'object' ? body : {}) as { parameters?: unknown; refresh_data?: unknown };
  const api = requireApi(request, context);
  const res = await api.call('POST', `/dashboards/${encodeURIComponent(params.id)}/status`, {
    body: { ...(parameters ? { parameters } : {}), refresh_data: refresh_data === true },
  });
  if (res.ok) return Response.json(res.body, { headers: { 'Cache-Control': 'no-store' } });
  return Response.json({ error: res.problem }, { status: res.problem.status >= 500 ? 503 : res.problem.status });
}

export function loader() {
  return Response.json({ error: { status: 405, code: 'method_not_allowed', message: 'Use POST.' } }, { status: 405 });
}
