/**
 * Saving a report written in the standalone editor (`/app/reports/new` without a dashboard): onto the
 * dashboard the analyst picked, or onto a new dashboard created with the name given. A new dashboard
 * whose report is then refused (a 422 on the SQL, say) is deleted again, so a failed save leaves
 * nothing behind; the report's errors come back for the form.
 */
import type { ApiClient } from './api.server';
import { write } from './editor.server';
import type { ApiErrorItem, ResourceBody } from './editor-forms';

export type SaveTarget = { dashboardId: string } | { newDashboard: string };

export type StandaloneSave = { ok: true; dashboardId: string } | { ok: false; status: number; errors: ApiErrorItem[] };

const refuse = (detail: string, pointer: string): StandaloneSave => ({
  ok: false,
  status: 422,
  errors: [{ status: '422', code: 'invalid_attribute', detail, source: { pointer } }] as ApiErrorItem[],
});

export function readTarget(raw: unknown): SaveTarget | null {
  const t = raw as { dashboardId?: unknown; newDashboard?: unknown } | null;
  if (t && typeof t.dashboardId === 'string' && t.dashboardId) return { dashboardId: t.dashboardId };
  if (t && typeof t.newDashboard === 'string') return { newDashboard: t.newDashboard };
  return null;
}

export async function saveStandalone(api: ApiClient, body: ResourceBody, target: SaveTarget | null): Promise<StandaloneSave> {
  if (!target) return refuse('Pick the dashboard the report goes on, or name a new one.', '/data/relationships/dashboard');
  let dashboardId: string;
  let created = false;
  if ('newDashboard' in target) {
    const name = target.newDashboard.trim();
    if (!name) return refuse('Name the new dashboard.', '/data/relationships/dashboard');
    const res = await write<{ data?: { id?: string } }>(api, 'POST', '/dashboards', { data: { type: 'dashboards', attributes: { name } } });
    if (!res.ok)
      return {
        ok: false,
        status: res.status,
        errors: res.errors.map((e) => ({ ...e, detail: `The new dashboard: ${e.detail ?? e.code}`, source: { pointer: '/data/relationships/dashboard' } })),
      };
    const id = res.body?.data?.id;
    if (typeof id !== 'string')
      return {
        ok: false,
        status: 502,
        errors: [{ status: '502', code: 'bad_response', detail: 'The API created the dashboard but did not name it.' }] as ApiErrorItem[],
      };
    dashboardId = id;
    created = true;
  } else {
    dashboardId = target.dashboardId;
  }
  const report: ResourceBody = {
    data: { ...body.data, relationships: { ...(body.data.relationships ?? {}), dashboard: { data: { type: 'dashboards', id: dashboardId } } } },
  };
  const res = await write(api, 'POST', '/reports', report);
  if (!res.ok) {
    if (created) await write(api, 'DELETE', `/dashboards/${encodeURIComponent(dashboardId)}`);
    return { ok: false, status: res.status, errors: res.errors };
  }
  return { ok: true, dashboardId };
}
