/**
 * `POST /app/exports` with `{kind: "dashboard"|"report", id, format: "pdf"|"png"|"csv", parameters, unlimited}`:
 * starts an export job as the signed-in user (`POST /dashboards/{id}/export_pdf|png`,
 * `POST /reports/{id}/export_pdf|png|csv`) and answers `{job_id, job_status, reused}`; the browser then
 * polls `/app/exports/{job}` and fetches `/app/exports/{job}/file`. Errors come back as `{error: {…}}`.
 */
import type { Route } from './+types/app.exports';
import type { ApiSchema } from '@cairn/client';
import { requireApi } from '../lib/api.server';

const fail = (status: number, code: string, message: string) => Response.json({ error: { status, code, message } }, { status });

interface StartBody {
  kind?: unknown;
  id?: unknown;
  format?: unknown;
  parameters?: unknown;
  unlimited?: unknown;
}

export async function action({ request, context }: Route.ActionArgs) {
  let body: StartBody;
  try {
    body = (await request.json()) as StartBody;
  } catch {
    return fail(400, 'malformed_json', 'The body must be JSON.');
  }
  const { kind, id, format } = body ?? {};
  if ((kind !== 'dashboard' && kind !== 'report') || typeof id !== 'string' || !id) return fail(400, 'bad_request', 'Name a dashboard or report.');
  if (format !== 'pdf' && format !== 'png' && !(format === 'csv' && kind === 'report'))
    return fail(400, 'bad_request', 'Choose PDF, PNG or (for a report) CSV.');
  const parameters = body.parameters && typeof body.parameters === 'object' ? body.parameters : undefined;
  const api = requireApi(request, context);
  const res = await api.call<ApiSchema<'ExportJobStarted'>>('POST', `/${kind}s/${encodeURIComponent(id)}/export_${format}`, {
    body: { ...(parameters ? { parameters } : {}), ...(format === 'csv' && body.unlimited === true ? { unlimited: true } : {}) },
  });
  if (!res.ok) return Response.json({ error: res.problem }, { status: res.problem.status >= 500 ? 503 : res.problem.status });
  return Response.json(
    { job_id: res.body.job_id, job_status: res.body.job_status, reused: res.body.reused === true },
    { headers: { 'Cache-Control': 'no-store' } },
  );
}

export function loader() {
  return fail(405, 'method_not_allowed', 'Use POST.');
}
