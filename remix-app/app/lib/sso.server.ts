/**
 * The web app's side of single sign-on (ARCHITECTURE D57, D63): the fixed addresses hand what the browser
 * brought to the API, which does every check; a session answer becomes the cookie, a refusal a page.
 */
import { data, redirect, type AppLoadContext } from 'react-router';
import type { ApiClient } from './api.server';
import { anonymousApi, problemFrom } from './api.server';
import { safeNext, sessionCookie } from './session.server';

interface SsoAnswer {
  token?: string;
  expires_at?: string | null;
  next?: string | null;
}

export interface SsoFailure {
  error: string;
  reason: string | null;
}

/** A refusal the worker's SAML ACS handler hands to the page that shows it (never read from the request). */
export interface SsoFailurePage extends SsoFailure {
  status: number;
}

/** Posts to an SSO route of the API: the session as a redirect with its cookie, or why it was refused. */
async function askApi(request: Request, api: ApiClient, path: string, body: Record<string, unknown>): Promise<Response | SsoFailurePage> {
  const res = await api.raw('POST', path, { body });
  const answer = res.body as SsoAnswer | null;
  if (res.status === 201 && typeof answer?.token === 'string') {
    return redirect(safeNext(answer.next ?? null), { headers: { 'Set-Cookie': sessionCookie(request, answer.token, answer.expires_at) } });
  }
  const problem = problemFrom(res.status, res.body);
  const reason = (res.body as { errors?: { meta?: { reason?: string } }[] } | null)?.errors?.[0]?.meta?.reason ?? null;
  return { error: problem.message, reason, status: res.status >= 500 ? 503 : res.status };
}

/** For a loader: the redirect with the session cookie, or the failure as data. */
export async function completeSso(request: Request, api: ApiClient, path: string, body: Record<string, unknown>) {
  const out = await askApi(request, api, path, body);
  if (out instanceof Response) return out;
  return data<SsoFailure>({ error: out.error, reason: out.reason }, { status: out.status });
}

/**
 * The SAML assertion consumer service's POST, answered by the app worker before React Router (D63): the
 * identity provider's page posts from its own origin, which React Router's action origin check refuses
 * by design. The signature, audience, recipient and single use are checked by the API. A sign-in answers
 * a 303 to the destination with the session cookie (SameSite=Lax: the cookie is set by this top-level
 * navigation's answer and sent with the GET it redirects to); a refusal is returned for the page to show.
 */
export async function samlAcsPost(request: Request, context: AppLoadContext): Promise<Response | SsoFailurePage> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return { error: 'The identity provider did not post a form to this address.', reason: 'invalid_saml', status: 400 };
  }
  const samlResponse = form.get('SAMLResponse');
  const relayState = form.get('RelayState');
  if (typeof samlResponse !== 'string' || !samlResponse) return { error: 'No SAML response was posted.', reason: 'invalid_saml', status: 400 };
  return askApi(request, anonymousApi(request, context), '/auth/sso/saml/acs', {
    saml_response: samlResponse,
    ...(typeof relayState === 'string' && relayState ? { relay_state: relayState.slice(0, 2000) } : {}),
  });
}
