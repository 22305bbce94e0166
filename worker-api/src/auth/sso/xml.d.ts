/** The parts of @xmldom/xmldom and xml-crypto that saml.ts uses (see xml.js). */
export interface XmlNode {
  nodeType: number;
  namespaceURI: string | null;
  localName: string | null;
  textContent: string | null;
  childNodes: ArrayLike<XmlNode>;
}
export interface XmlElement extends XmlNode {
  getAttribute(name: string): string | null;
  getElementsByTagNameNS(ns: string, name: string): ArrayLike<XmlElement>;
}
export interface XmlDocument extends XmlNode {
  documentElement: XmlElement;
  getElementsByTagNameNS(ns: string, name: string): ArrayLike<XmlElement>;
}
export class DOMParser {
  constructor(options?: { errorHandler?: { error?: (m: string) => void; fatalError?: (m: string) => void; warning?: (m: string) => void } });
  parseFromString(xml: string, mimeType: string): XmlDocument;
}
export class SignedXml {
  constructor(options?: { publicCert?: string; privateKey?: string; getCertFromKeyInfo?: (keyInfo?: unknown) => string | null });
  loadSignature(signature: XmlNode | string): void;
  checkSignature(xml: string): boolean;
  getSignedReferences(): string[];
}
