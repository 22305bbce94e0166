import type { XmlDocument, XmlElement, XmlNode } from './xml.js';
import { ApiError, randomString } from '@cairn/core';
import { ssoRefused } from './refusal.ts';

/**
 * The XML libraries (@xmldom/xmldom, xml-crypto: large, CommonJS) are loaded before the first SAML call, not
 * with the module, so the worker's other requests (and each test file of its suite) do not evaluate them.
 * Every caller of the functions below awaits `loadSamlLibraries()` first.
 */
let xmlLibs: typeof import('./xml.js') | undefined;
export async function loadSamlLibraries(): Promise<void> {
  xmlLibs ??= await import('./xml.js');
}
function libs(): typeof import('./xml.js') {
  if (!xmlLibs) throw new Error('SAML: loadSamlLibraries() was not awaited before parsing');
  return xmlLibs;
}

/**
 * SAML 2.0 service provider (ARCHITECTURE D57). Signatures are checked by `xml-crypto` (with
 * `@xmldom/xmldom`), which runs in workerd under nodejs_compat (its RSA verification is node:crypto's
 * createVerify). Only the IdP certificate stored in the connection is trusted — never a key the message
 * carries — and the assertion is read from what the signature covers (xml-crypto's signed references),
 * not from the document around it, so a wrapped unsigned assertion is never read.
 */
const NS = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  dsig: 'http://www.w3.org/2000/09/xmldsig#',
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
};
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
/** Clock skew allowed on NotBefore / NotOnOrAfter. */
const SKEW_MS = 90_000;

const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (ch) => `&${({ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' } as Record<string, string>)[ch]};`);

function parse(xml: string): XmlDocument {
  // No DTDs at all: nothing legitimate in SAML needs one (entity expansion attacks).
  if (/<!DOCTYPE/i.test(xml)) throw ssoRefused('The SAML message was refused: it holds a document type declaration.', 'invalid_saml');
  const errors: string[] = [];
  const doc = new (libs().DOMParser)({
    errorHandler: { error: (m: string) => errors.push(m), fatalError: (m: string) => errors.push(m), warning: () => {} },
  }).parseFromString(xml, 'text/xml');
  if (errors.length || !doc?.documentElement) throw ssoRefused('The SAML message is not well-formed XML.', 'invalid_saml');
  return doc;
}

const children = (el: XmlElement | XmlDocument, ns: string, name: string): XmlElement[] => Array.from(el.getElementsByTagNameNS(ns, name));
const first = (el: XmlElement | XmlDocument, ns: string, name: string): XmlElement | undefined => children(el, ns, name)[0];
const directChild = (el: XmlElement, ns: string, name: string): XmlElement | undefined =>
  Array.from(el.childNodes).find((n: XmlNode): n is XmlElement => n.nodeType === 1 && n.namespaceURI === ns && n.localName === name);

async function deflateBase64(text: string): Promise<string> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** An SP-initiated sign-in: the AuthnRequest sent by the HTTP-Redirect binding, and its id. */
export async function authnRequestUrl(ssoUrl: string, entityId: string, acsUrl: string, relayState: string) {
  const requestId = `_${randomString(40)}`;
  const xml =
    `<samlp:AuthnRequest xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="${requestId}" Version="2.0" ` +
    `IssueInstant="${new Date().toISOString()}" Destination="${escapeXml(ssoUrl)}" AssertionConsumerServiceURL="${escapeXml(acsUrl)}" ` +
    `ProtocolBinding="${POST_BINDING}"><saml:Issuer>${escapeXml(entityId)}</saml:Issuer>` +
    `<samlp:NameIDPolicy Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" AllowCreate="true"/></samlp:AuthnRequest>`;
  const url = new URL(ssoUrl);
  url.searchParams.set('SAMLRequest', await deflateBase64(xml));
  url.searchParams.set('RelayState', relayState);
  return { url: url.toString(), requestId };
}

/** The service provider's metadata: entity id, assertion consumer service, signed assertions wanted. */
export function spMetadata(entityId: string, acsUrl: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<md:EntityDescriptor xmlns:md="${NS.metadata}" entityID="${escapeXml(entityId)}">` +
    `<md:SPSSODescriptor AuthnRequestsSigned="false" WantAssertionsSigned="true" protocolSupportEnumeration="${NS.protocol}">` +
    '<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>' +
    `<md:AssertionConsumerService Binding="${POST_BINDING}" Location="${escapeXml(acsUrl)}" index="0" isDefault="true"/>` +
    '</md:SPSSODescriptor></md:EntityDescriptor>\n'
  );
}

/** An IdP's metadata → its entity id, HTTP-Redirect sign-in address and signing certificate. */
export function readIdpMetadata(xml: string): { entityId: string; ssoUrl: string; certificate: string } {
  const bad = (what: string) =>
    new ApiError('invalid_attribute', `metadata_url: the identity provider's metadata ${what}.`, { source: { pointer: '/metadata_url' } });
  let doc: XmlDocument;
  try {
    doc = parse(xml);
  } catch {
    throw bad('is not XML');
  }
  const entity = first(doc, NS.metadata, 'EntityDescriptor');
  const idp = entity && first(entity, NS.metadata, 'IDPSSODescriptor');
  if (!entity || !idp) throw bad('has no IDPSSODescriptor');
  const sso = children(idp, NS.metadata, 'SingleSignOnService').find((s) => s.getAttribute('Binding') === REDIRECT_BINDING);
  if (!sso?.getAttribute('Location')) throw bad('offers no HTTP-Redirect SingleSignOnService');
  const keys = children(idp, NS.metadata, 'KeyDescriptor').filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing');
  const cert = keys.map((k) => first(k, NS.dsig, 'X509Certificate')?.textContent?.trim()).find(Boolean);
  if (!cert) throw bad('has no signing certificate');
  return { entityId: entity.getAttribute('entityID') ?? '', ssoUrl: sso.getAttribute('Location')!, certificate: cert };
}

export function decodeResponse(b64: string): string {
  try {
    const bin = atob(b64.replace(/\s+/g, ''));
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0)));
  } catch {
    throw ssoRefused('The SAML response is not base64-encoded XML.', 'invalid_saml');
  }
}

/** The organization a response claims to be for (its Audience, the SP entity id `…?org=<id>`); not trusted until verified. */
export function claimedOrganization(xml: string): string | null {
  const doc = parse(xml);
  for (const aud of children(doc, NS.assertion, 'Audience')) {
    try {
      const org = new URL(aud.textContent?.trim() ?? '').searchParams.get('org');
      if (org) return org;
    } catch {
      /* not a URL: another SP's audience */
    }
  }
  return null;
}

export interface SamlIdentity {
  email: string;
  firstname?: string;
  lastname?: string;
  assertionId: string;
  /** Until when the assertion could be presented: the replay record is kept that long. */
  validUntil: Date;
  /** The AuthnRequest id it answers; null for an IdP-initiated sign-in. */
  inResponseTo: string | null;
}

const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'emailaddress',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  'urn:oid:0.9.2342.19200300.100.1.3',
];

/**
 * Verifies a SAML Response for one connection: a signature by the configured certificate over the
 * assertion (or over the whole response), issuer, audience, recipient, destination and time conditions.
 * The caller checks InResponseTo against its own requests and refuses a replayed assertion id.
 */
export function verifyResponse(xml: string, expect: { issuer: string; certificate: string; entityId: string; acsUrl: string; now?: number }): SamlIdentity {
  const now = expect.now ?? Date.now();
  const doc = parse(xml);
  const response = doc.documentElement;
  if (response.namespaceURI !== NS.protocol || response.localName !== 'Response') throw ssoRefused('The SAML message is not a Response.', 'invalid_saml');
  const status = first(response, NS.protocol, 'StatusCode')?.getAttribute('Value');
  if (status !== 'urn:oasis:names:tc:SAML:2.0:status:Success')
    throw ssoRefused(`The identity provider did not sign the user in (status ${status ?? 'missing'}).`, 'saml_status');
  if (first(response, NS.assertion, 'EncryptedAssertion'))
    throw ssoRefused('Encrypted assertions are not supported; turn assertion encryption off at the identity provider.', 'invalid_saml');

  // The assertion as the signature covers it.
  const signatures = children(doc, NS.dsig, 'Signature');
  if (!signatures.length) throw ssoRefused('The SAML response is not signed.', 'bad_signature');
  let assertion: XmlElement | undefined;
  for (const signature of signatures) {
    const sig = new (libs().SignedXml)({ publicCert: expect.certificate, getCertFromKeyInfo: () => null });
    let ok = false;
    try {
      sig.loadSignature(signature);
      ok = sig.checkSignature(xml);
    } catch {
      ok = false;
    }
    if (!ok) throw ssoRefused("The SAML response's signature does not verify against the identity provider's certificate.", 'bad_signature');
    for (const signed of sig.getSignedReferences()) {
      const el = parse(signed).documentElement;
      if (el.namespaceURI === NS.assertion && el.localName === 'Assertion') assertion = el;
      else if (el.namespaceURI === NS.protocol && el.localName === 'Response') {
        const inner = directChild(el, NS.assertion, 'Assertion');
        if (inner) assertion = inner;
      }
    }
  }
  const assertions = children(doc, NS.assertion, 'Assertion');
  if (!assertion || assertions.length !== 1) throw ssoRefused('The SAML response holds no single signed assertion.', 'bad_signature');

  const issuer = directChild(assertion, NS.assertion, 'Issuer')?.textContent?.trim();
  if (issuer !== expect.issuer) throw ssoRefused(`The SAML assertion was issued by ${issuer ?? 'nobody'}, not by ${expect.issuer}.`, 'wrong_issuer');
  const destination = response.getAttribute('Destination');
  if (destination && destination !== expect.acsUrl) throw ssoRefused('The SAML response was sent to another address (Destination).', 'wrong_recipient');

  const conditions = directChild(assertion, NS.assertion, 'Conditions');
  const time = (el: XmlElement | undefined, name: string) => {
    const v = el?.getAttribute(name);
    return v ? Date.parse(v) : null;
  };
  const notBefore = time(conditions, 'NotBefore');
  const notOnOrAfter = time(conditions, 'NotOnOrAfter');
  if (notBefore !== null && (Number.isNaN(notBefore) || now + SKEW_MS < notBefore))
    throw ssoRefused('The SAML assertion is not valid yet (NotBefore).', 'expired');
  if (notOnOrAfter === null || Number.isNaN(notOnOrAfter) || now - SKEW_MS >= notOnOrAfter)
    throw ssoRefused('The SAML assertion has expired (NotOnOrAfter).', 'expired');
  const audiences = conditions ? children(conditions, NS.assertion, 'Audience').map((a) => a.textContent?.trim()) : [];
  if (!audiences.includes(expect.entityId)) throw ssoRefused('The SAML assertion was issued for another service provider (Audience).', 'wrong_audience');

  const subject = directChild(assertion, NS.assertion, 'Subject');
  const bearer =
    subject && children(subject, NS.assertion, 'SubjectConfirmation').find((s) => s.getAttribute('Method') === 'urn:oasis:names:tc:SAML:2.0:cm:bearer');
  const data = bearer && directChild(bearer, NS.assertion, 'SubjectConfirmationData');
  if (!data) throw ssoRefused('The SAML assertion has no bearer subject confirmation.', 'invalid_saml');
  if (data.getAttribute('Recipient') !== expect.acsUrl) throw ssoRefused('The SAML assertion was issued for another address (Recipient).', 'wrong_recipient');
  const confirmUntil = time(data, 'NotOnOrAfter');
  if (confirmUntil === null || Number.isNaN(confirmUntil) || now - SKEW_MS >= confirmUntil)
    throw ssoRefused('The SAML assertion has expired (SubjectConfirmationData NotOnOrAfter).', 'expired');

  const assertionId = assertion.getAttribute('ID');
  if (!assertionId) throw ssoRefused('The SAML assertion has no ID.', 'invalid_saml');
  const nameId = subject && directChild(subject, NS.assertion, 'NameID')?.textContent?.trim();
  const attrs = new Map<string, string>();
  for (const a of children(assertion, NS.assertion, 'Attribute')) {
    const value = first(a, NS.assertion, 'AttributeValue')?.textContent?.trim();
    if (value) attrs.set((a.getAttribute('Name') ?? '').toLowerCase(), value);
  }
  const email = EMAIL_ATTRIBUTES.map((n) => attrs.get(n)).find(Boolean) ?? (nameId?.includes('@') ? nameId : undefined);
  if (!email) throw ssoRefused("The SAML assertion does not say the user's e-mail address (NameID or an email attribute).", 'no_email');
  return {
    email,
    firstname: attrs.get('firstname') ?? attrs.get('givenname') ?? attrs.get('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname'),
    lastname: attrs.get('lastname') ?? attrs.get('surname') ?? attrs.get('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname'),
    assertionId,
    validUntil: new Date(Math.max(notOnOrAfter, confirmUntil) + SKEW_MS),
    inResponseTo: data.getAttribute('InResponseTo') || null,
  };
}
