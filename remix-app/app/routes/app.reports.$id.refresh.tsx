/**
 * `POST /app/reports/{id}/refresh` with `{parameters}`: the tile's own refresh button. Asks the API
 * (`POST /reports/{id}/refresh`, which refuses reports whose refresh_enabled is off) as the signed-in
 * user; the dashboard's status poll then shows the new run. Errors come back as `{error: {…}}`.
 */
import type { Route } from './+types/app.reports.$id.refresh';
import { requireApi } from '../lib/api.server';

const fail = (status: number, code: string, message: string) => Response.json({ error: { status, code, message } }, { status });

export async function action({ request, context, params }: Route.ActionArgs) {
  let body: { parameters?: unknown };
  try {
    body = (await request.json()) as typeof body;
  } catch {
    return fail(400, 'malformed_json', 'The body must be JSON.');
  }
  const api = requireApi(request, context);
  const parameters = body && typeof body.parameters === 'object' && body.parameters !== null ? body.parameters : undefined;
  const res = await api.call<{ execution_id: string | null }>('POST', `/reports/${encodeURIComponent(params.id)}/refresh`, {
    body: parameters ? { parameters } : {},
  });
  if (res.ok) return Response.json(res.body ?? { execution_id: null }, { headers: { 'Cache-Control': 'no-store' } });
  return Response.json({ error: res.problem }, { status: res.problem.status >= 500 ? 503 : res.problem.status });
}

export function loader() {
  return fail(405, 'method_not_allowed', 'Use POST.');
}
