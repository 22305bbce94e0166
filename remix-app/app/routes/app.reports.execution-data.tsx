/**
 * `GET /app/reports/executions/{id}/data[?offset=N]`: a page of the rows of a finished execution (2,000
 * from `offset`, the first page by default) for the editor's result table and chart preview (API data
 * handle, then the data server), with the whole result's row count so the editor can page on.
 */
import type { Route } from './+types/app.reports.execution-data';
import { requireApi } from '../lib/api.server';
import { getEnv } from '../lib/env.server';
import { executionRows } from '../lib/editor.server';

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const raw = new URL(request.url).searchParams.get('offset');
  if (raw !== null && !/^\d{1,9}$/.test(raw)) {
    return Response.json(
      { errors: [{ status: '400', code: 'invalid_query_parameter', detail: 'offset is a row number: 0 or more.', source: { parameter: 'offset' } }] },
      { status: 400 },
    );
  }
  const answer = await executionRows(requireApi(request, context), getEnv(context).DATA, params.id, raw === null ? 0 : Number(raw));
  return Response.json(answer, { headers: { 'Cache-Control': 'private, no-store' } });
}
