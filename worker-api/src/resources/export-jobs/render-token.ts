/**
 * Render tokens: what the renderer's browser carries to open the print view of one dashboard (or one
 * report of it) in the web app (`/render/{token}`). The app hands the token to the API's public render
 * routes (render-routes.ts), which verify it and answer as a viewer of that dashboard only.
 *
 * The token is signed claims of purpose `render` (core/src/claims.ts, D70) under the API's SECRET_KEY:
 * its key is derived for this purpose only, so no other token can pass for a render token or the other
 * way round. Claims: organization, dashboard, optional report, the parameters, colour mode, page width
 * and an expiry a few minutes ahead.
 */
import { ApiError, signClaims, verifyClaims, type InputParameters } from '@cairn/core';

const RENDER_TOKEN_TTL_SECONDS = 10 * 60;

export interface RenderClaims {
  org: string;
  dashboard: string;
  /** Set for a single report: the print view shows only this report. */
  report: string | null;
  parameters: InputParameters;
  mode: 'light' | 'dark';
  /** CSS pixels of the page (the dashboard's or the schedule's page width). */
  width: number;
  /** Expiry, unix seconds. */
  exp: number;
}

export async function signRenderToken(claims: Omit<RenderClaims, 'exp'>, secretKey: string, now = Date.now()): Promise<string> {
  const exp = Math.floor(now / 1000) + RENDER_TOKEN_TTL_SECONDS;
  return signClaims('render', { ...claims, exp }, secretKey, { exp });
}

const invalid = (why: string) => new ApiError('unauthorized', `This render address is not valid: ${why}.`, { source: { parameter: 'token' } });

const FAILURES = { malformed: 'malformed token', signature: 'bad signature', expired: 'expired' } as const;

/** The claims of a valid, unexpired token; 401 otherwise. */
export async function verifyRenderToken(token: string, secretKey: string, now = Date.now()): Promise<RenderClaims> {
  if (token.length > 8000) throw invalid(FAILURES.malformed);
  const checked = await verifyClaims<RenderClaims>('render', token, secretKey, { now });
  if (!checked.ok) throw invalid(FAILURES[checked.why]);
  const claims = checked.claims;
  if (typeof claims.org !== 'string' || typeof claims.dashboard !== 'string' || typeof claims.exp !== 'number') throw invalid('malformed claims');
  return claims;
}
