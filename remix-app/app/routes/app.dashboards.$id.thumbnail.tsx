/**
 * `GET /app/dashboards/{id}/thumbnail?v=<drawn at>`: the dashboard's thumbnail image (PNG) for the
 * dashboard list, fetched from the API with the visitor's session (View Dashboards on it). `v` changes
 * with every new image, so the browser may keep each address for a week. No image yet, or none the
 * visitor may see: 404 with no body (the list then shows its drawn placeholder).
 */
import type { Route } from './+types/app.dashboards.$id.thumbnail';
import { requireApi } from '../lib/api.server';

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const res = await api.response('GET', `/dashboards/${encodeURIComponent(params.id)}/thumbnail`).catch(() => null);
  if (!res) return new Response(null, { status: 503, headers: { 'Cache-Control': 'no-store' } });
  if (res.status === 401) return new Response(null, { status: 401, headers: { 'Cache-Control': 'no-store' } });
  if (res.status !== 200 || res.headers.get('content-type') !== 'image/png') {
    await res.body?.cancel();
    return new Response(null, { status: 404, headers: { 'Cache-Control': 'no-store' } });
  }
  const versioned = new URL(request.url).searchParams.has('v');
  return new Response(res.body, {
    headers: {
      'Content-Type': 'image/png',
      'Cache-Control': versioned ? 'private, max-age=604800, immutable' : 'private, no-cache',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}
