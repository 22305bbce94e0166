/**
 * `POST /app/dashboards/{id}/backup` (the dashboard menu's "Download backup", a plain form post): the
 * API's backup of the dashboard (POST /dashboards/{id}/backup) as a JSON file download named after the
 * dashboard. The API decides (Manage Dashboards on the dashboard); a refusal is answered as plain text.
 */
import { redirect } from 'react-router';
import type { Route } from './+types/app.dashboard.$id.backup';
import { requireApi } from '../lib/api.server';
import { backupFileName } from '../lib/dashboard-backup';

function problem(status: number, message: string) {
  return new Response(`The backup could not be made: ${message}\n`, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const id = encodeURIComponent(params.id);
  const [backup, dashboard] = await Promise.all([
    api.call<{ dashboard?: { name?: string } }>('POST', `/dashboards/${id}/backup`),
    api.call<{ data?: { attributes?: { name?: string } } }>('GET', `/dashboards/${id}`),
  ]);
  if (!backup.ok) {
    if (backup.problem.status === 401) throw api.toResponse(backup.problem);
    return problem(backup.problem.status >= 500 ? 503 : backup.problem.status, backup.problem.message);
  }
  const name = (dashboard.ok ? dashboard.body.data?.attributes?.name : undefined) ?? backup.body.dashboard?.name;
  const file = backupFileName(name);
  return new Response(JSON.stringify(backup.body, null, 2), {
    status: 200,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Disposition': `attachment; filename="${file}"`,
      'Cache-Control': 'no-store',
    },
  });
}

/** A GET (an address typed or opened again) has nothing to download: back to the dashboard. */
export function loader({ params }: Route.LoaderArgs) {
  return redirect(`/app/dashboards/${encodeURIComponent(params.id)}`);
}
