import { Hono, type Context } from 'hono';
import { and, eq, lt } from 'drizzle-orm';
import { z } from 'zod';
import { ApiError, sha256Hex, wrongRegion } from '@cairn/core';
import { auditLog, organizations, ssoAssertionsSeen, ssoAttempts, ssoConnections } from '@cairn/db';
import type { AppEnv } from '../../env.ts';
import { readBody } from '../../lib/body.ts';
import { authenticate } from '../authenticate.ts';
import { connectionBody, connectionForEmail, loadConnection, requireAppUrl, saveConnection, serializeConnection, ssoAddresses } from './connection.ts';
import { idpFetch } from './fetch-guard.ts';
import { authorizationUrl, completeCode, discover } from './oidc.ts';
import { ssoRefused } from './refusal.ts';
import { authnRequestUrl, claimedOrganization, decodeResponse, loadSamlLibraries, readIdpMetadata, spMetadata, verifyResponse } from './saml.ts';
import { finishSsoSignIn } from './sign-in.ts';

/**
 * Single sign-on (web app only, not in the public API; ARCHITECTURE D57). The web app's fixed addresses
 * (`/app/sso/…`) pass what the browser brought to these routes, which hold all the checks:
 *
 * - `POST /auth/sso/start` `{email, next?}` → `{redirect_url}`: the identity provider of the address's
 *   domain, with a single-use attempt (OIDC state/nonce/PKCE verifier, or the SAML request id).
 * - `POST /auth/sso/oidc/callback` `{code, state}` and `POST /auth/sso/saml/acs` `{saml_response,
 *   relay_state?}` → a session, like `POST /auth/sessions` (plus `next`).
 * - `GET /auth/sso/saml/metadata?org=` → the service provider's metadata (XML).
 * - `GET|PUT|DELETE /auth/sso/connection`: the organization's settings (admins, signed in).
 */
export const ssoRoutes = new Hono<AppEnv>();

const ATTEMPT_MINUTES = 10;
const safeNext = (next: string | null | undefined) =>
  next && /^\/app(\/|$)/.test(next) && !next.startsWith('//') && !/[\u0000-\u001f\\]/.test(next) ? next : null;

const startBody = z.object({ email: z.string().trim().email().max(320), next: z.string().max(2000).optional() }).strict();

ssoRoutes.post('/auth/sso/start', async (c) => {
  const body = await readBody(c, startBody, 'action');
  const conn = await connectionForEmail(c.var.db, body.email);
  const domain = body.email.slice(body.email.lastIndexOf('@') + 1).toLowerCase();
  if (!conn) {
    throw new ApiError('invalid_attribute', `email: no single sign-on is set up for ${domain}; sign in with your password.`, {
      source: { pointer: '/email' },
      meta: { reason: 'no_sso' },
    });
  }
  const [org] = await c.var.db.select({ region: organizations.region }).from(organizations).where(eq(organizations.id, conn.organization_id));
  if (org && org.region !== c.env.REGION) throw wrongRegion(c.env, org.region, c.env.REGION, 'api');
  const addresses = ssoAddresses(requireAppUrl(c.env.APP_URL), conn.organization_id);
  const expires = new Date(Date.now() + ATTEMPT_MINUTES * 60_000);
  await c.var.db.delete(ssoAttempts).where(lt(ssoAttempts.expires_at, new Date()));
  const next = safeNext(body.next);
  if (conn.protocol === 'oidc') {
    const a = await authorizationUrl(c.env, conn, addresses.oidc_redirect_uri, body.email);
    await c.var.db.insert(ssoAttempts).values({
      id: await sha256Hex(a.state),
      organization_id: conn.organization_id,
      protocol: 'oidc',
      nonce: a.nonce,
      code_verifier: a.codeVerifier,
      next,
      expires_at: expires,
    });
    return c.json({ redirect_url: a.url, protocol: 'oidc' });
  }
  const a = await authnRequestUrl(conn.sso_url!, addresses.saml_entity_id, addresses.saml_acs_url, next ?? '/app/');
  await c.var.db
    .insert(ssoAttempts)
    .values({ id: await sha256Hex(a.requestId), organization_id: conn.organization_id, protocol: 'saml', next, expires_at: expires });
  return c.json({ redirect_url: a.url, protocol: 'saml' });
});

/** Takes a started sign-in once (deleted as it is read), or refuses. */
async function takeAttempt(c: Context<AppEnv>, key: string, protocol: 'oidc' | 'saml', organizationId?: string) {
  const conditions = [eq(ssoAttempts.id, await sha256Hex(key)), eq(ssoAttempts.protocol, protocol)];
  if (organizationId) conditions.push(eq(ssoAttempts.organization_id, organizationId));
  const [row] = await c.var.db
    .delete(ssoAttempts)
    .where(and(...conditions))
    .returning();
  if (!row || row.expires_at.getTime() < Date.now()) {
    throw ssoRefused('This single sign-on has expired or was used already; start again from the sign-in page.', 'attempt_expired');
  }
  return row;
}

const callbackBody = z.object({ code: z.string().min(1).max(4000), state: z.string().min(1).max(200) }).strict();

ssoRoutes.post('/auth/sso/oidc/callback', async (c) => {
  const body = await readBody(c, callbackBody, 'action');
  const attempt = await takeAttempt(c, body.state, 'oidc');
  const conn = await loadConnection(c.var.db, attempt.organization_id);
  if (!conn || conn.protocol !== 'oidc') throw ssoRefused('Single sign-on is no longer set up for this organization.', 'no_sso');
  const who = await completeCode(c.env, conn, {
    code: body.code,
    redirectUri: ssoAddresses(requireAppUrl(c.env.APP_URL), conn.organization_id).oidc_redirect_uri,
    codeVerifier: attempt.code_verifier!,
    nonce: attempt.nonce!,
  });
  return finishSsoSignIn(c, conn, who, 'oidc', attempt.next);
});

const acsBody = z.object({ saml_response: z.string().min(1).max(500_000), relay_state: z.string().max(2000).optional() }).strict();

ssoRoutes.post('/auth/sso/saml/acs', async (c) => {
  const body = await readBody(c, acsBody, 'action');
  await loadSamlLibraries();
  const xml = decodeResponse(body.saml_response);
  const orgId = claimedOrganization(xml);
  const conn = orgId ? await loadConnection(c.var.db, orgId) : null;
  if (!conn || conn.protocol !== 'saml' || !conn.certificate)
    throw ssoRefused('The SAML response is not for an organization that uses SAML here (Audience).', 'wrong_audience');
  const addresses = ssoAddresses(requireAppUrl(c.env.APP_URL), conn.organization_id);
  const who = verifyResponse(xml, { issuer: conn.issuer, certificate: conn.certificate, entityId: addresses.saml_entity_id, acsUrl: addresses.saml_acs_url });
  // A used assertion is refused as a replay first (its request, if any, was taken by its first use).
  await c.var.db.delete(ssoAssertionsSeen).where(lt(ssoAssertionsSeen.expires_at, new Date()));
  const fresh = await c.var.db
    .insert(ssoAssertionsSeen)
    .values({ organization_id: conn.organization_id, assertion_id: who.assertionId, expires_at: who.validUntil })
    .onConflictDoNothing()
    .returning({ id: ssoAssertionsSeen.assertion_id });
  if (!fresh.length) throw ssoRefused('This SAML assertion was used already (replay); sign in again.', 'replayed');
  // SP-initiated: it must answer a request of ours, once. IdP-initiated (no InResponseTo): the RelayState is only a destination.
  const attempt = who.inResponseTo ? await takeAttempt(c, who.inResponseTo, 'saml', conn.organization_id) : null;
  return finishSsoSignIn(c, conn, who, 'saml', attempt ? attempt.next : safeNext(body.relay_state));
});

ssoRoutes.get('/auth/sso/saml/metadata', async (c) => {
  const org = c.req.query('org') ?? '';
  const [row] = org.length <= 100 ? await c.var.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, org)) : [];
  if (!row) throw new ApiError('not_found', `No organization with id "${org}" exists.`, { source: { parameter: 'org' } });
  const a = ssoAddresses(requireAppUrl(c.env.APP_URL), row.id);
  return c.body(spMetadata(a.saml_entity_id, a.saml_acs_url), 200, { 'content-type': 'application/samlmetadata+xml; charset=utf-8' });
});

function adminOrganization(c: Context<AppEnv>): { org: string; userId: string } {
  const p = c.var.principal;
  if (p.kind !== 'user')
    throw new ApiError(
      'forbidden',
      'Single sign-on is set up in the web app or with the operator CLI (`npm run cairn -- sso configure`), not with an API key.',
    );
  if (p.role !== 'admin') throw new ApiError('forbidden', 'Only administrators can see or change single sign-on.');
  return { org: p.organizationId, userId: p.userId };
}

ssoRoutes.get('/auth/sso/connection', authenticate, async (c) => {
  const { org } = adminOrganization(c);
  const conn = await loadConnection(c.var.db, org);
  return c.json({ connection: conn ? serializeConnection(conn, c.env.APP_URL) : null, addresses: ssoAddresses(c.env.APP_URL, org) });
});

ssoRoutes.put('/auth/sso/connection', authenticate, async (c) => {
  const { org, userId } = adminOrganization(c);
  const input = await readBody(c, connectionBody, 'action');
  if (input.protocol === 'saml' && input.metadata_url) {
    const res = await idpFetch(c.env, input.metadata_url, { headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' } });
    if (!res.ok)
      throw new ApiError('invalid_attribute', `metadata_url: the identity provider answered HTTP ${res.status}.`, { source: { pointer: '/metadata_url' } });
    await loadSamlLibraries();
    const meta = readIdpMetadata(await res.text());
    input.issuer ||= meta.entityId;
    input.sso_url ||= meta.ssoUrl;
    input.certificate ||= meta.certificate;
  }
  if (input.protocol === 'oidc' && input.issuer) await discover(c.env, input.issuer);
  const conn = await saveConnection(c.var.db, org, input, c.env.SECRET_KEY);
  await c.var.db.insert(auditLog).values({
    organization_id: org,
    actor_type: 'user',
    actor_id: userId,
    action: 'configure_sso',
    resource_type: 'sso_connections',
    resource_id: org,
    request_id: c.var.requestId,
    details: { protocol: conn.protocol, domains: conn.domains, require_sso: conn.require_sso, jit_role: conn.jit_role },
  });
  return c.json({ connection: serializeConnection(conn, c.env.APP_URL) });
});

ssoRoutes.delete('/auth/sso/connection', authenticate, async (c) => {
  const { org, userId } = adminOrganization(c);
  await c.var.db.delete(ssoConnections).where(eq(ssoConnections.organization_id, org));
  await c.var.db.insert(auditLog).values({
    organization_id: org,
    actor_type: 'user',
    actor_id: userId,
    action: 'remove_sso',
    resource_type: 'sso_connections',
    resource_id: org,
    request_id: c.var.requestId,
  });
  return c.body(null, 204);
});
