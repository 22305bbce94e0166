/** `/app/sso/oidc/callback`: the OpenID provider sends the browser back here with `code` and `state`. */
import { data } from 'react-router';
import type { Route } from './+types/app.sso.oidc.callback';
import { SsoRefused } from '../components/SsoRefused';
import '../components/account/account.css';
import { anonymousApi } from '../lib/api.server';
import { completeSso, type SsoFailure } from '../lib/sso.server';

export function meta() {
  return [{ title: 'Single sign-on · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const error = url.searchParams.get('error');
  if (error) {
    const why = url.searchParams.get('error_description') ?? error;
    return data<SsoFailure>({ error: `The identity provider did not sign you in: ${why.slice(0, 300)}`, reason: 'provider_error' }, { status: 401 });
  }
  const code = url.searchParams.get('code') ?? '';
  const state = url.searchParams.get('state') ?? '';
  if (!code || !state)
    return data<SsoFailure>(
      { error: 'This address is where your identity provider sends you after signing in; start from the sign-in page.', reason: 'no_code' },
      { status: 400 },
    );
  return completeSso(request, anonymousApi(request, context), '/auth/sso/oidc/callback', { code, state });
}

export default function OidcCallback({ loaderData }: Route.ComponentProps) {
  return <SsoRefused error={loaderData.error} reason={loaderData.reason} />;
}
