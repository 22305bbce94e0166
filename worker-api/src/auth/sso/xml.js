// The XML libraries behind SAML, re-exported with the small typing in xml.d.ts: their own types pull in
// TypeScript's DOM library, which clashes with the Workers types this package is checked against.
export { DOMParser } from '@xmldom/xmldom';
export { SignedXml } from 'xml-crypto';
