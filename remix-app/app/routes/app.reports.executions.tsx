/**
 * `POST /app/reports/executions` with `{datasource_id, sql_query, parameters, dashboard_id}`: starts a query from the
 * report editor (`POST /datasources/{id}/executions`) and answers the execution, or the API's errors.
 */
import type { Route } from './+types/app.reports.executions';
import { requireApi } from '../lib/api.server';
import { errorItems } from '../lib/editor.server';

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  let body: { datasource_id?: unknown; sql_query?: unknown; parameters?: unknown; dashboard_id?: unknown };
  try {
    body = (await request.json()) as typeof body;
  } catch {
    return Response.json({ errors: [{ code: 'malformed_json', detail: 'The body must be JSON.' }] }, { status: 400 });
  }
  if (typeof body.datasource_id !== 'string' || !body.datasource_id) {
    return Response.json(
      { errors: [{ code: 'missing_attribute', detail: 'Pick a datasource to run the query on.', source: { pointer: '/datasource_id' } }] },
      { status: 422 },
    );
  }
  // With the dashboard, the API reads the filter values with that dashboard's filters (as its reports run).
  const dashboardId = typeof body.dashboard_id === 'string' && body.dashboard_id ? body.dashboard_id : undefined;
  const res = await api.raw('POST', `/datasources/${encodeURIComponent(body.datasource_id)}/executions`, {
    body: {
      sql_query: body.sql_query,
      ...(body.parameters && typeof body.parameters === 'object' ? { parameters: body.parameters } : {}),
      ...(dashboardId ? { dashboard_id: dashboardId } : {}),
    },
  });
  if (res.status >= 200 && res.status < 300) return Response.json(res.body, { status: 201 });
  return Response.json({ errors: errorItems(res.status, res.body) }, { status: res.status >= 500 ? 503 : res.status });
}

export function loader() {
  return Response.json({ errors: [{ code: 'method_not_allowed', detail: 'Use POST.' }] }, { status: 405 });
}
