/**
 * `POST /s/{token}/status` with `{query, parameters?, refresh_data?}`: the link's dashboard status from
 * the API (public-links module), with the visitor's address and password grant attached. Errors come
 * back as `{error: {status, code, message}}` so the page can show them in place.
 */
import type { Route } from './+types/s.$token.status';
import { publicCall, publicLinkApiPath } from '../components/sharing/public-link.server';

const fail = (status: number, code: string, message: string) => Response.json({ error: { status, code, message } }, { status });

export async function action({ request, context, params }: Route.ActionArgs) {
  let body: { query?: unknown; parameters?: unknown; refresh_data?: unknown };
  try {
    body = (await request.json()) as typeof body;
  } catch {
    return fail(400, 'malformed_json', 'The body must be JSON.');
  }
  const res = await publicCall(request, context, params.token, publicLinkApiPath(params.token, '/status'), {
    query: typeof body?.query === 'string' ? body.query : '',
    ...(body?.parameters && typeof body.parameters === 'object' ? { parameters: body.parameters } : {}),
    refresh_data: body?.refresh_data === true,
  });
  if (res.ok) return Response.json(res.body, { headers: { 'Cache-Control': 'no-store' } });
  return Response.json({ error: res.problem }, { status: res.problem.status >= 500 ? 503 : res.problem.status });
}

export function loader() {
  return fail(405, 'method_not_allowed', 'Use POST.');
}
