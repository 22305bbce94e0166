/**
 * `/app/sso/saml/acs`: the SAML assertion consumer service. The identity provider's page posts
 * `SAMLResponse` (and `RelayState`) here, for a sign-in started here or at the provider (IdP-initiated).
 * The POST is answered by the app worker itself (workers/app.ts → lib/sso.server.ts `samlAcsPost`, D63);
 * this page only shows a refusal the worker hands over in the load context, and otherwise leads to sign-in.
 */
import { data, redirect } from 'react-router';
import type { Route } from './+types/app.sso.saml.acs';
import { SsoRefused } from '../components/SsoRefused';
import '../components/account/account.css';
import type { SsoFailure } from '../lib/sso.server';

export function meta() {
  return [{ title: 'Single sign-on · Cairn' }];
}

export function loader({ context }: Route.LoaderArgs) {
  const failure = context.ssoFailure;
  if (!failure) return redirect('/app/login');
  return data<SsoFailure>({ error: failure.error, reason: failure.reason }, { status: failure.status });
}

export default function SamlAcs({ loaderData }: Route.ComponentProps) {
  return <SsoRefused error={loaderData.error} reason={loaderData.reason} />;
}
