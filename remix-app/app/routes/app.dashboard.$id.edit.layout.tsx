/**
 * Edit mode's Layout tab: drag and resize the tiles, save through `PUT /dashboards/{id}/layout`, remove
 * reports (`DELETE /reports/{id}`).
 */
import { useRouteLoaderData } from 'react-router';
import type { Route } from './+types/app.dashboard.$id.edit.layout';
import { LayoutEditor } from '../components/layout-editor/LayoutEditor';
import { requireApi } from '../lib/api.server';
import { write } from '../lib/editor.server';
import { placeMissing, type Tile } from '../lib/editor-layout';
import type { EditData } from './app.dashboard.$id.edit';
import { readForm } from '../lib/forms.server';

export async function action({ request, context, params }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const id = encodeURIComponent(params.id);
  if (request.headers.get('Content-Type')?.includes('application/json')) {
    const body = (await request.json().catch(() => null)) as { intent?: string; layout?: Tile[]; floating_enabled?: boolean } | null;
    if (body?.intent !== 'layout' || !Array.isArray(body.layout)) return { errors: [{ detail: 'The layout editor sent a body the app cannot use.' }] };
    const sent = body.layout;
    const res = await write(api, 'PUT', `/dashboards/${id}/layout`, { layout: sent, floating_enabled: body.floating_enabled === true }, false);
    return res.ok ? { ok: true, sent } : { errors: res.errors, sent };
  }
  const form = await readForm(request);
  if (form.get('intent') === 'remove') {
    const report = String(form.get('report') ?? '');
    const res = await write(api, 'DELETE', `/reports/${encodeURIComponent(report)}`);
    return res.ok ? { ok: true } : { errors: res.errors };
  }
  return { errors: [{ detail: 'Unknown action.' }] };
}

export default function LayoutTab() {
  const data = useRouteLoaderData('routes/app.dashboard.$id.edit') as EditData;
  const { dashboard, reports, search } = data;
  const tiles = placeMissing(
    dashboard.layout,
    reports.map((r) => r.id),
  );
  return <LayoutEditor tiles={tiles} floating={dashboard.floating} reports={reports} search={search} />;
}
