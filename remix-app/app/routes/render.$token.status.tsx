/**
 * `POST /render/{token}/status`: the print view's status poll, answered by the API's public render
 * route (`/public/render/{token}/status`), which verifies the render token. Errors come back as
 * `{error: {status, code, message}}`.
 */
import type { Route } from './+types/render.$token.status';
import { renderApiCall } from '../components/render/render-api.server';

export async function action({ context, params }: Route.ActionArgs) {
  const res = await renderApiCall(context, params.token, '/status');
  if (res.ok) return Response.json(res.body, { headers: { 'Cache-Control': 'no-store' } });
  return Response.json({ error: res.problem }, { status: res.problem.status >= 500 ? 503 : res.problem.status });
}

export function loader() {
  return Response.json({ error: { status: 405, code: 'method_not_allowed', message: 'Use POST.' } }, { status: 405 });
}
