/**
 * Real identity providers on loopback for the single sign-on tests (app-sso.browser.test.ts):
 *
 * - OpenID Connect: `oidc-provider` (devInteractions login form) behind a small proxy that is its issuer
 *   address; the proxy passes everything through, and on demand rewrites the token endpoint's ID token
 *   (re-signed with the provider's own key for a wrong audience or an expired token, with a foreign key
 *   of the same kid for a bad signature), the cases a well-behaved provider never produces.
 * - SAML 2.0: an IdP built on `xml-crypto` (the signing side of the library Cairn verifies with) with a
 *   throwaway certificate from `openssl`: metadata, the HTTP-Redirect sign-in (SP-initiated), an
 *   IdP-initiated post, and responses made wrong on demand (audience, expiry, signature, replay).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, decodeJwt, decodeProtectedHeader, SignJWT, type JWK } from 'jose';
import Provider from 'oidc-provider';
import { SignedXml } from 'xml-crypto';

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

type OidcTamper = 'none' | 'audience' | 'expired' | 'signature';

export interface OidcIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** How the next token answers are changed. */
  tamper: OidcTamper;
  close(): Promise<void>;
}

export async function startOidcIdp(opts: { port: number; innerPort: number; redirectUri: string }): Promise<OidcIdp> {
  const issuer = `http://127.0.0.1:${opts.port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'idp-key-1', alg: 'RS256', use: 'sig' } as JWK;
  const foreign = (await generateKeyPair('RS256')).privateKey;
  const clientId = 'cairn-e2e';
  const clientSecret = `secret-${randomUUID()}`;
  const provider = new Provider(issuer, {
    clients: [
      { client_id: clientId, client_secret: clientSecret, redirect_uris: [opts.redirectUri], grant_types: ['authorization_code'], response_types: ['code'] },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: [randomUUID()] },
    features: { devInteractions: { enabled: true } },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    // The devInteractions login: the typed "login" is the account, and the account's e-mail.
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: id, email_verified: true, given_name: 'Oda', family_name: 'Idp' }),
    }),
  } as never);
  provider.proxy = false;
  const inner = createServer(provider.callback());
  await listen(inner, opts.innerPort);

  const state: OidcIdp = { issuer, clientId, clientSecret, tamper: 'none', close: async () => {} };
  const signWith = async (claims: Record<string, unknown>, key: CryptoKey) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'idp-key-1', typ: 'JWT' }).sign(key);

  const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const upstream = httpRequest(
        { host: '127.0.0.1', port: opts.innerPort, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${opts.port}` } },
        (up) => {
          const isToken = req.method === 'POST' && (req.url ?? '').startsWith('/token') && state.tamper !== 'none';
          if (!isToken) {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
            return;
          }
          const parts: Buffer[] = [];
          up.on('data', (c: Buffer) => parts.push(c));
          up.on('end', async () => {
            const answer = JSON.parse(Buffer.concat(parts).toString('utf8')) as { id_token?: string };
            if (answer.id_token) {
              decodeProtectedHeader(answer.id_token);
              const claims = decodeJwt(answer.id_token) as Record<string, unknown>;
              const now = Math.floor(Date.now() / 1000);
              if (state.tamper === 'audience') answer.id_token = await signWith({ ...claims, aud: 'another-application' }, privateKey);
              if (state.tamper === 'expired') answer.id_token = await signWith({ ...claims, iat: now - 7200, exp: now - 3600 }, privateKey);
              if (state.tamper === 'signature') answer.id_token = await signWith(claims, foreign);
            }
            const text = JSON.stringify(answer);
            res.writeHead(up.statusCode ?? 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
            res.end(text);
          });
        },
      );
      upstream.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      upstream.end(body);
    });
  });
  await listen(proxy, opts.port);
  state.close = async () => {
    await new Promise((r) => proxy.close(() => r(undefined)));
    await new Promise((r) => inner.close(() => r(undefined)));
  };
  return state;
}

type SamlTamper = 'none' | 'audience' | 'expired' | 'signature';

export interface SamlIdp {
  entityId: string;
  metadataUrl: string;
  certificate: string;
  /** Who the next sign-in is, and how its response is made wrong. */
  user: string;
  tamper: SamlTamper;
  /** The page that posts the last response again (replay). */
  replayUrl: string;
  /** An IdP-initiated sign-in page for an organization. */
  initiateUrl(org: string, email: string): string;
  close(): Promise<void>;
}

const C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const esc = (s: string) => s.replace(/[<>&"]/g, (c) => `&${({ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot' } as Record<string, string>)[c]};`);

export async function startSamlIdp(opts: { port: number; appOrigin: string }): Promise<SamlIdp> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-saml-idp-'));
  const makeCert = (name: string) => {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, `${name}.key`),
        '-out',
        join(dir, `${name}.crt`),
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, `${name}.key`), 'utf8'), cert: readFileSync(join(dir, `${name}.crt`), 'utf8') };
  };
  const idpKey = makeCert('cairn-e2e-idp');
  const otherKey = makeCert('someone-else');
  rmSync(dir, { recursive: true, force: true });
  const base = `http://127.0.0.1:${opts.port}`;
  const entityId = `${base}/entity`;
  const acs = `${opts.appOrigin}/app/sso/saml/acs`;
  let last: { response: string; relay: string } | null = null;

  const state: SamlIdp = {
    entityId,
    metadataUrl: `${base}/metadata`,
    certificate: idpKey.cert,
    user: '',
    tamper: 'none',
    replayUrl: `${base}/replay`,
    initiateUrl: (org, email) => `${base}/initiate?org=${encodeURIComponent(org)}&email=${encodeURIComponent(email)}`,
    close: async () => {},
  };

  function response(org: string, inResponseTo: string | null): string {
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const until = state.tamper === 'expired' ? now - 10 * 60_000 : now + 5 * 60_000;
    const audience = state.tamper === 'audience' ? 'https://another-service.example/saml' : `${opts.appOrigin}/app/sso/saml/metadata?org=${org}`;
    const irt = inResponseTo ? ` InResponseTo="${esc(inResponseTo)}"` : '';
    const assertionId = `_a${randomUUID().replace(/-/g, '')}`;
    const xml =
      `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID().replace(/-/g, '')}" Version="2.0" IssueInstant="${iso(now)}" Destination="${esc(acs)}"${irt}>` +
      `<saml:Issuer>${esc(entityId)}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
      `<saml:Assertion ID="${assertionId}" Version="2.0" IssueInstant="${iso(now)}"><saml:Issuer>${esc(entityId)}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${esc(state.user)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData Recipient="${esc(acs)}" NotOnOrAfter="${iso(until)}"${irt}/></saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${iso(now - 60_000)}" NotOnOrAfter="${iso(until)}"><saml:AudienceRestriction><saml:Audience>${esc(audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${iso(now)}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      `<saml:AttributeStatement><saml:Attribute Name="firstName"><saml:AttributeValue>Sam</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>` +
      '</saml:Assertion></samlp:Response>';
    const sig = new SignedXml({
      privateKey: state.tamper === 'signature' ? otherKey.key : idpKey.key,
      canonicalizationAlgorithm: C14N,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    });
    sig.addReference({
      xpath: "//*[local-name(.)='Assertion']",
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', C14N],
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    });
    sig.computeSignature(xml, { prefix: 'ds', location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } });
    return Buffer.from(sig.getSignedXml(), 'utf8').toString('base64');
  }

  const postPage = (res: ServerResponse, samlResponse: string, relay: string) => {
    last = { response: samlResponse, relay };
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Test IdP</title><form method="post" action="${esc(acs)}"><input type="hidden" name="SAMLResponse" value="${samlResponse}"><input type="hidden" name="RelayState" value="${esc(relay)}"><noscript><button>Continue</button></noscript></form><script>document.forms[0].submit()</script>`,
    );
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/metadata') {
      const body = idpKey.cert.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
      res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' });
      res.end(
        `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${esc(entityId)}">` +
          '<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">' +
          `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${body}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
          `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${base}/sso"/>` +
          '</md:IDPSSODescriptor></md:EntityDescriptor>',
      );
      return;
    }
    if (url.pathname === '/sso') {
      // SP-initiated: the AuthnRequest's id is answered in InResponseTo; its issuer names the organization.
      const request = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
      const id = /\bID="([^"]+)"/.exec(request)?.[1] ?? '';
      const org = /[?&]org=([^<&"]+)/.exec(request)?.[1] ?? '';
      postPage(res, response(decodeURIComponent(org), id), url.searchParams.get('RelayState') ?? '');
      return;
    }
    if (url.pathname === '/initiate') {
      state.user = url.searchParams.get('email') ?? '';
      postPage(res, response(url.searchParams.get('org') ?? '', null), '/app/');
      return;
    }
    if (url.pathname === '/replay' && last) {
      postPage(res, last.response, last.relay);
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await listen(server, opts.port);
  state.close = () => new Promise((r) => server.close(() => r(undefined)));
  return state;
}
