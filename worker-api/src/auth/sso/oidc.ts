import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet } from 'jose';
import { ApiError, base64url, randomString } from '@cairn/core';
import type { Env } from '../../env.ts';
import { clientSecret, type SsoConnection } from './connection.ts';
import { idpFetch } from './fetch-guard.ts';
import { ssoRefused } from './refusal.ts';

/**
 * OpenID Connect, authorization code flow with PKCE (S256), `state` and `nonce` (ARCHITECTURE D57). The
 * ID token is verified by `jose` against the provider's JWKS: signature, `iss` (the configured issuer),
 * `aud` (the client id), `exp`/`nbf` (60 s of clock skew), then the nonce of this sign-in.
 */
interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
}

export async function discover(env: Env, issuer: string): Promise<Discovery> {
  const res = await idpFetch(env, `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, { headers: { accept: 'application/json' } });
  const doc = (res.ok ? await res.json().catch(() => null) : null) as Partial<Discovery> | null;
  if (!doc || typeof doc.authorization_endpoint !== 'string' || typeof doc.token_endpoint !== 'string' || typeof doc.jwks_uri !== 'string') {
    throw new ApiError('service_unavailable', `The identity provider ${issuer} has no usable OpenID configuration (HTTP ${res.status}).`);
  }
  // The document must be the issuer's own (OpenID Connect Discovery §4.3).
  if (doc.issuer !== issuer)
    throw new ApiError(
      'invalid_state',
      `The identity provider names its issuer ${String(doc.issuer)}, not ${issuer}; correct the issuer in the single sign-on settings.`,
    );
  return doc as Discovery;
}

async function s256(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

/** Where the browser goes to sign in, and what the callback needs to check the answer. */
export async function authorizationUrl(env: Env, conn: SsoConnection, redirectUri: string, loginHint: string | undefined) {
  const d = await discover(env, conn.issuer);
  const state = randomString(43);
  const nonce = randomString(43);
  const codeVerifier = randomString(64);
  const url = new URL(d.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', conn.client_id!);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('scope', 'openid email profile');
  url.searchParams.set('state', state);
  url.searchParams.set('nonce', nonce);
  url.searchParams.set('code_challenge', await s256(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  if (loginHint) url.searchParams.set('login_hint', loginHint);
  if (conn.preset === 'google' && conn.domains[0]) url.searchParams.set('hd', conn.domains[0]);
  return { url: url.toString(), state, nonce, codeVerifier };
}

/** Trades the code for tokens and verifies the ID token; answers its e-mail claim. */
export async function completeCode(
  env: Env,
  conn: SsoConnection,
  input: { code: string; redirectUri: string; codeVerifier: string; nonce: string },
): Promise<{ email: string; firstname?: string; lastname?: string }> {
  const d = await discover(env, conn.issuer);
  const secret = (await clientSecret(conn, env.SECRET_KEY)) ?? '';
  const form = new URLSearchParams({ grant_type: 'authorization_code', code: input.code, redirect_uri: input.redirectUri, code_verifier: input.codeVerifier });
  // client_secret_basic: both parts form-encoded first (RFC 6749 §2.3.1).
  const basic = btoa(`${encodeURIComponent(conn.client_id!)}:${encodeURIComponent(secret)}`);
  const res = await idpFetch(env, d.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
    body: form,
  });
  const tokens = (await res.json().catch(() => null)) as { id_token?: string; access_token?: string; error?: string; error_description?: string } | null;
  if (!res.ok || typeof tokens?.id_token !== 'string') {
    throw ssoRefused(
      `The identity provider refused the sign-in: ${tokens?.error_description ?? tokens?.error ?? `HTTP ${res.status}`}.`,
      'token_exchange_failed',
    );
  }
  const jwksRes = await idpFetch(env, d.jwks_uri, { headers: { accept: 'application/json' } });
  const jwks = (jwksRes.ok ? await jwksRes.json().catch(() => null) : null) as JSONWebKeySet | null;
  if (!jwks || !Array.isArray(jwks.keys)) throw new ApiError('service_unavailable', "The identity provider's signing keys (JWKS) could not be read.");
  const keys = createLocalJWKSet(jwks);
  let claims: Record<string, unknown>;
  try {
    ({ payload: claims } = await jwtVerify(tokens.id_token, keys, {
      issuer: conn.issuer,
      audience: conn.client_id!,
      clockTolerance: 60,
      requiredClaims: ['exp', 'iat', 'sub'],
    }));
  } catch (err) {
    throw ssoRefused(`The identity provider's ID token was refused: ${idTokenProblem(err)}`, 'invalid_id_token');
  }
  if (claims.nonce !== input.nonce) throw ssoRefused("The identity provider's ID token was refused: its nonce is not this sign-in's.", 'invalid_id_token');
  // Many providers (oidc-provider, Okta's org server) put only `sub` in the ID token of the code flow and
  // answer the rest from the userinfo endpoint, for the access token (OpenID Connect Core §5.3).
  if (typeof claims.email !== 'string' && d.userinfo_endpoint && typeof tokens.access_token === 'string') {
    claims = { ...claims, ...(await userinfo(env, d, conn, keys, tokens.access_token, String(claims.sub))) };
  }
  const email =
    typeof claims.email === 'string'
      ? claims.email
      : conn.preset === 'entra' && typeof claims.preferred_username === 'string' && claims.preferred_username.includes('@')
        ? claims.preferred_username
        : null;
  if (!email) throw ssoRefused("The identity provider did not say the user's e-mail address (ask for the email scope/claim).", 'no_email');
  if (claims.email_verified === false) throw ssoRefused(`The identity provider has not verified ${email}.`, 'email_not_verified');
  return {
    email,
    firstname: typeof claims.given_name === 'string' ? claims.given_name : undefined,
    lastname: typeof claims.family_name === 'string' ? claims.family_name : undefined,
  };
}

/**
 * The userinfo answer for an access token: JSON, or a JWT signed with the provider's keys when the client
 * is registered so. Its `sub` must be the ID token's (Core §5.3.2), or the answer is about someone else.
 */
async function userinfo(
  env: Env,
  d: Discovery,
  conn: SsoConnection,
  keys: ReturnType<typeof createLocalJWKSet>,
  accessToken: string,
  sub: string,
): Promise<Record<string, unknown>> {
  const res = await idpFetch(env, d.userinfo_endpoint!, { headers: { accept: 'application/json, application/jwt', authorization: `Bearer ${accessToken}` } });
  if (!res.ok) throw ssoRefused(`The identity provider's userinfo endpoint refused the access token (HTTP ${res.status}).`, 'userinfo_failed');
  let info: Record<string, unknown> | null;
  if ((res.headers.get('content-type') ?? '').toLowerCase().startsWith('application/jwt')) {
    try {
      ({ payload: info } = await jwtVerify(await res.text(), keys, { issuer: conn.issuer, audience: conn.client_id!, clockTolerance: 60 }));
    } catch (err) {
      throw ssoRefused(`The identity provider's signed userinfo answer was refused: ${idTokenProblem(err)}`, 'userinfo_failed');
    }
  } else {
    const body = await res.json().catch(() => null);
    info = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  }
  if (!info) throw ssoRefused("The identity provider's userinfo answer is not a JSON object.", 'userinfo_failed');
  if (info.sub !== sub) throw ssoRefused("The identity provider's userinfo answer is about another subject than its ID token (sub).", 'userinfo_failed');
  // Only the profile claims; the ID token's own claims (iss, aud, nonce…) stay those that were verified.
  const pick: Record<string, unknown> = {};
  for (const k of ['email', 'email_verified', 'given_name', 'family_name', 'preferred_username']) if (k in info) pick[k] = info[k];
  return pick;
}

function idTokenProblem(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'it has expired.';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return 'it was issued for another application (audience).';
    if (err.claim === 'iss') return 'it was issued by another issuer.';
    return `its ${err.claim} claim is not valid (${err.reason}).`;
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return "its signature does not verify against the provider's keys.";
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'it is signed with a key the provider does not publish.';
  return (err as Error).message ?? 'it is not a valid token.';
}
