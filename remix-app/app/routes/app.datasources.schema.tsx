/**
 * `GET /app/datasources/{id}/schema[?name=]`: the datasource's schema for the schema browser (API schema
 * call, then the data server). `POST` starts a reload from the database (`POST /datasources/{id}/refresh`).
 */
import type { Route } from './+types/app.datasources.schema';
import { requireApi } from '../lib/api.server';
import { getEnv } from '../lib/env.server';
import { callMissing, errorItems, loadSchema } from '../lib/editor.server';

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const name = new URL(request.url).searchParams.get('name');
  const answer = await loadSchema(api, getEnv(context).DATA, params.id, name);
  return Response.json(answer, { headers: { 'Cache-Control': 'private, no-store' } });
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const res = await api.raw('POST', `/datasources/${encodeURIComponent(params.id)}/refresh`);
  if (callMissing(res.status, res.body)) return { ok: false, message: 'Reloading the schema is not available on this server yet.' };
  if (res.status < 200 || res.status >= 300) return { ok: false, message: errorItems(res.status, res.body)[0]?.detail ?? `The API answered ${res.status}.` };
  return { ok: true, message: 'Reloading the schema from the database; the list updates in a moment.' };
}
