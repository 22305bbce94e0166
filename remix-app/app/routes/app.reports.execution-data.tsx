/**
 * `GET /app/reports/executions/{id}/data`: the first rows of a finished execution for the editor's
 * result table and chart preview (API data handle, then the data server).
 */
import type { Route } from './+types/app.reports.execution-data';
import { requireApi } from '../lib/api.server';
import { getEnv } from '../lib/env.server';
import { executionRows } from '../lib/editor.server';

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const answer = await executionRows(requireApi(request, context), getEnv(context).DATA, params.id);
  return Response.json(answer, { headers: { 'Cache-Control': 'private, no-store' } });
}
