/**
 * `POST /app/reports/filter-options/{filterId}` with `{dashboard_id, parameters}`: a query-driven
 * dropdown's options for the report editor's filter bar (`POST /filters/{id}/options` as the signed-in
 * user), as `{options: [{value, label}]}`, or the API's error with its status.
 */
import type { Route } from './+types/app.reports.filter-options';
import { requireApi } from '../lib/api.server';
import { filterOptions } from '../lib/editor-filter-options.server';

const problem = (status: number, code: string, detail: string) => Response.json({ errors: [{ status: String(status), code, detail }] }, { status });

export async function action({ request, context, params }: Route.ActionArgs) {
  let body: { dashboard_id?: unknown; parameters?: unknown };
  try {
    body = (await request.json()) as typeof body;
  } catch {
    return problem(400, 'malformed_json', 'The body must be JSON.');
  }
  if (typeof body?.dashboard_id !== 'string' || !body.dashboard_id)
    return problem(422, 'missing_attribute', 'Name the dashboard whose filter values the options are for (dashboard_id).');
  const answer = await filterOptions(requireApi(request, context), params.id, body.dashboard_id, body.parameters);
  if (answer.status === 'ok') return Response.json({ options: answer.options }, { headers: { 'Cache-Control': 'private, no-store' } });
  const status = answer.httpStatus >= 500 ? 503 : answer.httpStatus;
  return problem(status, answer.code, answer.message);
}

export function loader() {
  return problem(405, 'method_not_allowed', 'Use POST.');
}
