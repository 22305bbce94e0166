/**
 * `GET /app/data/<data key>`: hands a stored result from the data server (DATA service binding) to
 * the browser. The browser sends the short-lived data token it got from the status call as
 * `Authorization: Data <token>`; the body streams through untouched. No API key or session reaches
 * the data server, and the app never parses the rows. A page (`?offset=&limit=`) is passed on; the
 * data server checks the values.
 */
import type { Route } from './+types/app.dashboard-data';
import { getEnv } from '../lib/env.server';

const DATA_ORIGIN = 'https://cairn-data.internal';
const DATA_KEY = /^[A-Za-z0-9_\-.=]+(\/[A-Za-z0-9_\-.=]+)*$/;

function problem(status: number, code: string, message: string) {
  return Response.json({ errors: [{ status: String(status), code, detail: message }] }, { status });
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const key = params['*'] ?? '';
  if (!DATA_KEY.test(key) || key.includes('..')) return problem(400, 'bad_request', 'That is not a data key.');
  const auth = request.headers.get('Authorization') ?? '';
  if (!/^Data\s+\S+$/i.test(auth.trim())) return problem(401, 'unauthorized', 'Send the data access token as "Authorization: Data <token>".');
  let res: Response;
  try {
    const asked = new URL(request.url).searchParams;
    const page = new URLSearchParams();
    for (const name of ['offset', 'limit']) {
      const value = asked.get(name);
      if (value !== null) page.set(name, value);
    }
    const query = page.size ? `?${page}` : '';
    res = await getEnv(context).DATA.fetch(`${DATA_ORIGIN}/data/${key}${query}`, { headers: { Authorization: auth.trim(), Accept: 'application/json' } });
  } catch {
    return problem(503, 'service_unavailable', 'The data server could not be reached.');
  }
  const headers = new Headers({ 'Content-Type': res.headers.get('Content-Type') ?? 'application/json', 'Cache-Control': 'private, no-store' });
  return new Response(res.body, { status: res.status, headers });
}
