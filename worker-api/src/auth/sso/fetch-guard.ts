import { ApiError } from '@cairn/core';
import { resolvedRefusal } from '../../engine/connectors/target-guard.ts';
import { settingsOf } from '../../config.ts';
import type { Env } from '../../env.ts';

/**
 * Fetches an identity provider's document (OIDC discovery, JWKS, token endpoint, SAML metadata). Under
 * BLOCK_PRIVATE_NETWORKS the host must be public, like a datasource's (an admin could otherwise make the
 * API read internal addresses); https is required there too.
 */
export async function idpFetch(env: Env, url: string, init?: RequestInit): Promise<Response> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ApiError('invalid_state', `The identity provider address ${url} is not a URL.`);
  }
  if (settingsOf(env).blockPrivateNetworks) {
    if (parsed.protocol !== 'https:') throw new ApiError('invalid_state', `The identity provider address ${url} must use https.`);
    const refusal = await resolvedRefusal(parsed.hostname);
    if (refusal) throw new ApiError('invalid_state', `The identity provider address is refused: ${refusal}`);
  } else if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ApiError('invalid_state', `The identity provider address ${url} must use https.`);
  }
  try {
    return await fetch(parsed, { ...init, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    throw new ApiError('service_unavailable', `The identity provider at ${parsed.origin} did not answer (${(err as Error).message}).`);
  }
}
