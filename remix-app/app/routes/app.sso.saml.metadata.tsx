/** `/app/sso/saml/metadata?org=<id>`: the service provider's SAML metadata (the SP entity id is this address). */
import type { Route } from './+types/app.sso.saml.metadata';
import { API_ORIGIN } from '../lib/api.server';
import { getEnv } from '../lib/env.server';

export async function loader({ request, context }: Route.LoaderArgs) {
  const org = new URL(request.url).searchParams.get('org') ?? '';
  const res = await getEnv(context).API.fetch(new Request(`${API_ORIGIN}/auth/sso/saml/metadata?org=${encodeURIComponent(org)}`));
  if (!res.ok)
    return new Response(`No organization ${org.slice(0, 100)} here.\n`, {
      status: res.status === 404 ? 404 : 503,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    });
  return new Response(await res.text(), { headers: { 'Content-Type': 'application/samlmetadata+xml; charset=utf-8', 'Cache-Control': 'public, max-age=300' } });
}
