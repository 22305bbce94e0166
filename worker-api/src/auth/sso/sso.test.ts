/**
 * Single sign-on in the API (issue 20, ARCHITECTURE D57/D63/D64): SAML responses signed here as an
 * identity provider signs them (xml-crypto with throwaway keys made by vitest.peers.ts), posted to
 * `POST /auth/sso/saml/acs`; "require single sign-on" refusing password sign-in and password reset;
 * deactivation ending sessions and refusing the next single sign-on. The OpenID Connect flow and the web
 * app's fixed addresses are covered in the browser against real providers (e2e/app-sso.browser.test.ts).
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { randomString } from '@cairn/core';
import { sessions, ssoConnections } from '@cairn/db';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import worker from '../../index.ts';
import { SignedXml } from './xml.js';
import { issueResetToken } from '../password-reset.ts';
import { addUser, call, db, makeKey, makeOrg, type UserFields } from '../../../test/fixtures.ts';

const APP = 'https://cairn-app.test';
const ACS = `${APP}/app/sso/saml/acs`;
const IDP = 'https://idp.sso-test.example/entity';
const C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const keys = inject('samlKeys');

let org: CreateOrganizationResult;
let domain: string;
let entityId: string;

/** The API with APP_URL set (SSO's fixed addresses need it), called through the worker module. */
async function api(path: string, init: { method?: string; body?: unknown; session?: string } = {}) {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { 'cf-connecting-ip': '198.51.100.7' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.session) headers.authorization = `Session ${init.session}`;
  const res = await worker.fetch(
    new Request(`https://api.test${path}`, {
      method: init.method ?? (init.body ? 'POST' : 'GET'),
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
    { ...env, APP_URL: APP } as never,
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

interface Make {
  email: string;
  audience?: string;
  until?: number;
  key?: string;
  issuer?: string;
  assertionId?: string;
  inResponseTo?: string;
}

/** A SAML Response with one assertion signed by `key`, base64 as the HTTP-POST binding carries it. */
function samlResponse(m: Make): string {
  const now = Date.now();
  const iso = (ms: number) => new Date(ms).toISOString();
  const until = m.until ?? now + 5 * 60_000;
  const id = m.assertionId ?? `_a${randomString(32)}`;
  const irt = m.inResponseTo ? ` InResponseTo="${m.inResponseTo}"` : '';
  const xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomString(32)}" Version="2.0" IssueInstant="${iso(now)}" Destination="${ACS}"${irt}>` +
    `<saml:Issuer>${m.issuer ?? IDP}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `<saml:Assertion ID="${id}" Version="2.0" IssueInstant="${iso(now)}"><saml:Issuer>${m.issuer ?? IDP}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${m.email}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData Recipient="${ACS}" NotOnOrAfter="${iso(until)}"${irt}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(now - 60_000)}" NotOnOrAfter="${iso(until)}"><saml:AudienceRestriction><saml:Audience>${(m.audience ?? entityId).replace(/&/g, '&amp;')}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(now)}"/></saml:Assertion></samlp:Response>`;
  // The signing half of xml-crypto (saml.ts's typing lists only what verification uses).
  const sig = new SignedXml({
    privateKey: m.key ?? keys.idp.key,
    canonicalizationAlgorithm: C14N,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  } as never) as unknown as {
    addReference(o: unknown): void;
    computeSignature(xml: string, o: unknown): void;
    getSignedXml(): string;
  };
  sig.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', C14N],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, { prefix: 'ds', location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } });
  return btoa(String.fromCharCode(...new TextEncoder().encode(sig.getSignedXml())));
}

const acs = (saml: string) => api('/auth/sso/saml/acs', { body: { saml_response: saml } });

/** An analyst of the organization who accepted their invitation (single sign-on finds them by address). */
async function member(email: string, extra: UserFields = {}) {
  return (await addUser(org.organization.id, { email, role: 'analyst', invitation_accepted_at: new Date(), ...extra })).id;
}

beforeAll(async () => {
  org = await makeOrg('sso');
  domain = `sso-${randomString(8).toLowerCase()}.test`;
  entityId = `${APP}/app/sso/saml/metadata?org=${org.organization.id}`;
  await db()
    .insert(ssoConnections)
    .values({
      organization_id: org.organization.id,
      protocol: 'saml',
      issuer: IDP,
      sso_url: 'https://idp.sso-test.example/sso',
      certificate: keys.idp.cert,
      domains: [domain],
    });
});

describe('SAML assertion consumer (API)', () => {
  it('starts a session for a signed assertion of a user, once: the same assertion again is a replay', async () => {
    const email = `ada-${randomString(6).toLowerCase()}@${domain}`;
    const id = await member(email);
    const saml = samlResponse({ email });
    const ok = await acs(saml);
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
    expect(ok.json.user.id).toBe(id);
    expect((await api('/auth/me', { session: ok.json.token })).status).toBe(200);
    const again = await acs(saml);
    expect(again.status).toBe(401);
    expect(again.json.errors[0].meta.reason).toBe('replayed');
  });

  it('answers an SP-initiated request once: the same response again is a replay, not an expired request', async () => {
    const email = `eve-${randomString(6).toLowerCase()}@${domain}`;
    await member(email);
    const started = await api('/auth/sso/start', { body: { email, next: '/app/datasources' } });
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    const url = new URL(started.json.redirect_url);
    expect(url.origin + url.pathname).toBe('https://idp.sso-test.example/sso');
    // The HTTP-Redirect binding: raw DEFLATE, then base64.
    const deflated = Uint8Array.from(atob(url.searchParams.get('SAMLRequest')!), (ch) => ch.charCodeAt(0));
    const request = await new Response(new Blob([deflated]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).text();
    const requestId = /\bID="([^"]+)"/.exec(request)![1]!;
    expect(request).toContain(`AssertionConsumerServiceURL="${ACS}"`);
    const saml = samlResponse({ email, inResponseTo: requestId });
    const ok = await acs(saml);
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
    expect(ok.json.next).toBe('/app/datasources');
    const again = await acs(saml);
    expect(again.json.errors[0].meta.reason).toBe('replayed');
    // A fresh assertion for a request that was answered already: the request is single use.
    const late = await acs(samlResponse({ email, inResponseTo: requestId }));
    expect(late.json.errors[0].meta.reason).toBe('attempt_expired');
  });

  it('refuses another audience, an expired assertion, a signature by another key and an e-mail outside the domains', async () => {
    const email = `bea-${randomString(6).toLowerCase()}@${domain}`;
    await member(email);
    const cases: [Make, string][] = [
      [{ email, audience: 'https://other-sp.example/saml' }, 'wrong_audience'],
      [{ email, until: Date.now() - 10 * 60_000 }, 'expired'],
      [{ email, key: keys.other.key }, 'bad_signature'],
      [{ email, issuer: 'https://someone-else.example/idp' }, 'wrong_issuer'],
      [{ email: `bea@elsewhere-${randomString(4).toLowerCase()}.test` }, 'email_outside_domains'],
    ];
    for (const [m, reason] of cases) {
      const res = await acs(samlResponse(m));
      expect(res.status, reason).toBe(401);
      expect(res.json.errors[0].meta.reason, JSON.stringify(res.json)).toBe(reason);
    }
  });

  it('refuses an address without an account when just-in-time creation is off', async () => {
    const res = await acs(samlResponse({ email: `nobody-${randomString(6).toLowerCase()}@${domain}` }));
    expect(res.json.errors[0].meta.reason).toBe('no_account');
  });
});

describe('deactivated users', () => {
  it('deactivating a user ends their sessions, and their next single sign-on is refused', async () => {
    const key = await makeKey(org.organization.id);
    const email = `cleo-${randomString(6).toLowerCase()}@${domain}`;
    const id = await member(email);
    const first = await acs(samlResponse({ email }));
    expect(first.status).toBe(201);
    const second = await acs(samlResponse({ email }));
    expect(second.status).toBe(201);
    for (const t of [first.json.token, second.json.token]) expect((await api('/auth/me', { session: t })).status).toBe(200);
    const off = await call(`/users/${id}/deactivate`, { key, method: 'POST' });
    expect(off.status).toBe(204);
    for (const t of [first.json.token, second.json.token]) expect((await api('/auth/me', { session: t })).status).toBe(401);
    expect(await db().select().from(sessions).where(eq(sessions.user_id, id))).toHaveLength(0);
    const refused = await acs(samlResponse({ email }));
    expect(refused.status).toBe(401);
    expect(refused.json.errors[0].meta.reason).toBe('user_deactivated');
    expect(refused.json.errors[0].detail).toMatch(/deactivated/);
  });
});

describe('require single sign-on', () => {
  it("refuses password sign-in and password reset for the domain and for the organization's other members, saying why", async () => {
    const email = `dora-${randomString(6).toLowerCase()}@${domain}`;
    const id = await member(email, { password: 'dora password 1' });
    // Before: the password works.
    expect((await api('/auth/sessions', { body: { email, password: 'dora password 1' } })).status).toBe(201);
    await db().update(ssoConnections).set({ require_sso: true }).where(eq(ssoConnections.organization_id, org.organization.id));
    try {
      for (const [who, password] of [
        [email, 'dora password 1'],
        [email, 'a wrong one'],
        [org.admin.email, 'correct horse battery'],
      ] as const) {
        const res = await api('/auth/sessions', { body: { email: who, password } });
        expect(res.status, who).toBe(403);
        expect(res.json.errors[0].meta.reason).toBe('sso_required');
        expect(res.json.errors[0].detail).toMatch(/requires single sign-on/);
      }
      const reset = await api('/auth/password-resets', { body: { email } });
      expect(reset.status).toBe(403);
      expect(reset.json.errors[0].detail).toMatch(/requires single sign-on/);
      // A link issued before single sign-on was required no longer sets a password.
      const token = await issueResetToken(db(), { id, organization_id: org.organization.id });
      const use = await api(`/auth/password-resets/${token}`, { body: { password: 'a brand new password' } });
      expect(use.status).toBe(403);
      expect(use.json.errors[0].meta.reason).toBe('sso_required');
      // Single sign-on itself still works.
      expect((await acs(samlResponse({ email }))).status).toBe(201);
    } finally {
      await db().update(ssoConnections).set({ require_sso: false }).where(eq(ssoConnections.organization_id, org.organization.id));
    }
  });
});

declare module 'vitest' {
  export interface ProvidedContext {
    /** Throwaway IdP keys and certificates made by vitest.peers.ts. */
    samlKeys: { idp: { key: string; cert: string }; other: { key: string; cert: string } };
  }
}
