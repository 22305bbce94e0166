/**
 * Reading the messages the SMTP catcher receives (RFC 5322 + MIME): headers unfolded and decoded
 * (RFC 2047 encoded words), multipart bodies walked, base64 / quoted-printable undone, the text and
 * HTML bodies picked out and every other leaf described as an attachment. Lenient on purpose: a catcher
 * shows whatever arrived, it never refuses a message for its form.
 */

export interface Header {
  name: string;
  value: string;
}

export interface AttachmentInfo {
  filename: string | null;
  content_type: string;
  disposition: string | null;
  content_id: string | null;
  /** Decoded size in bytes. */
  size: number;
}

export interface ParsedMessage {
  headers: Header[];
  subject: string | null;
  from: string | null;
  to: string | null;
  cc: string | null;
  date: string | null;
  message_id: string | null;
  text: string | null;
  html: string | null;
  attachments: AttachmentInfo[];
}

interface ContentType {
  type: string;
  params: Record<string, string>;
}

interface Leaf {
  headers: Header[];
  contentType: ContentType;
  disposition: ContentType | null;
  body: Buffer;
}

const MAX_DEPTH = 20;

/** Splits at the first empty line; tolerates bare LF line ends. */
function splitHeadBody(raw: Buffer): { head: string; body: Buffer } {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  if (crlf === -1 && lf === -1) return { head: raw.toString('latin1'), body: Buffer.alloc(0) };
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { head: raw.subarray(0, crlf).toString('latin1'), body: raw.subarray(crlf + 4) };
  return { head: raw.subarray(0, lf).toString('latin1'), body: raw.subarray(lf + 2) };
}

/** Header lines unfolded (continuation lines start with white space); values decoded per RFC 2047. */
export function parseHeaders(head: string): Header[] {
  const out: Header[] = [];
  for (const line of head.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && out.length) {
      out[out.length - 1]!.value += line;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    out.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  }
  // Raw header bytes are UTF-8 when a sender uses 8-bit headers; latin1 kept the bytes intact until here.
  return out.map((h) => ({ name: h.name, value: decodeWords(Buffer.from(h.value, 'latin1').toString('utf8')) }));
}

function decodeCharset(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset.trim().toLowerCase() || 'utf-8').decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

/** RFC 2047 `=?charset?B|Q?text?=`; white space between two adjacent encoded words disappears. */
export function decodeWords(value: string): string {
  const word = /=\?([^?\s]+)\?([bBqQ])\?([^?\s]*)\?=/g;
  const joined = value.replace(/(=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=)\s+(?==\?)/g, '$1');
  return joined.replace(word, (_all, charset: string, enc: string, text: string) => {
    const cs = charset.split('*')[0]!; // RFC 2231 language suffix
    const bytes = enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : qDecode(text);
    return decodeCharset(bytes, cs);
  });
}

function qDecode(text: string): Buffer {
  return decodeQuotedPrintable(text.replace(/_/g, ' '));
}

/** Quoted-printable (RFC 2045 §6.7): `=XX` bytes and `=` soft line breaks. */
export function decodeQuotedPrintable(text: string): Buffer {
  const noSoftBreaks = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < noSoftBreaks.length; i++) {
    const ch = noSoftBreaks[i]!;
    const hex = noSoftBreaks.slice(i + 1, i + 3);
    if (ch === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
    }
  }
  return Buffer.from(bytes);
}

/** `type/subtype; a=b; c="d e"` (also RFC 2231 `name*=charset''percent-encoded`). */
export function parseContentType(value: string | undefined, fallback = 'text/plain'): ContentType {
  if (!value) return { type: fallback, params: {} };
  const [first, ...rest] = splitParams(value);
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq <= 0) continue;
    const key = p.slice(0, eq).trim().toLowerCase();
    let val = p.slice(eq + 1).trim();
    if (val.startsWith('"') && val.endsWith('"')) val = val.slice(1, -1).replace(/\\(.)/g, '$1');
    if (key.endsWith('*')) {
      const m = /^([^']*)'[^']*'(.*)$/.exec(val);
      const decoded = m ? decodeCharset(Buffer.from(percentBytes(m[2]!)), m[1]! || 'utf-8') : val;
      params[key.slice(0, -1)] = decoded;
    } else if (!(key in params)) params[key] = val;
  }
  return { type: (first ?? fallback).trim().toLowerCase() || fallback, params };
}

function percentBytes(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      out.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else out.push(...Buffer.from(s[i]!, 'utf8'));
  }
  return out;
}

/** Splits on `;` outside quoted strings. */
function splitParams(value: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === '\\' && quoted) {
      cur += ch + (value[i + 1] ?? '');
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
      cur += ch;
    } else if (ch === ';' && !quoted) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p, i) => i === 0 || p !== '');
}

function header(headers: Header[], name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name)?.value;
}

function decodeBody(body: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'base64':
      return Buffer.from(body.toString('latin1').replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
    case 'quoted-printable':
      return decodeQuotedPrintable(body.toString('latin1'));
    default:
      return body;
  }
}

/** The parts between `--boundary` lines (the preamble and epilogue dropped). */
function splitMultipart(body: Buffer, boundary: string): Buffer[] {
  const text = body.toString('latin1');
  const delimiter = new RegExp(`(?:^|\\r?\\n)--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(--)?[ \\t]*(?:\\r?\\n|$)`, 'g');
  const parts: Buffer[] = [];
  let start = -1;
  for (let m = delimiter.exec(text); m; m = delimiter.exec(text)) {
    if (start !== -1) parts.push(Buffer.from(text.slice(start, m.index), 'latin1'));
    if (m[1]) return parts;
    start = m.index + m[0].length;
  }
  if (start !== -1) parts.push(Buffer.from(text.slice(start), 'latin1'));
  return parts;
}

function collectLeaves(raw: Buffer, depth: number, out: Leaf[]): void {
  const { head, body } = splitHeadBody(raw);
  const headers = parseHeaders(head);
  const contentType = parseContentType(header(headers, 'content-type'));
  const boundary = contentType.params.boundary;
  if (contentType.type.startsWith('multipart/') && boundary && depth < MAX_DEPTH) {
    for (const part of splitMultipart(body, boundary)) collectLeaves(part, depth + 1, out);
    return;
  }
  const dispositionValue = header(headers, 'content-disposition');
  out.push({
    headers,
    contentType,
    disposition: dispositionValue ? parseContentType(dispositionValue, 'inline') : null,
    body: decodeBody(body, header(headers, 'content-transfer-encoding')),
  });
}

function isAttachment(leaf: Leaf): boolean {
  if (leaf.disposition?.type === 'attachment') return true;
  if (leaf.disposition?.params.filename || leaf.contentType.params.name) return true;
  return !leaf.contentType.type.startsWith('text/plain') && !leaf.contentType.type.startsWith('text/html');
}

/** The whole message: decoded headers, first text and HTML bodies, the other parts as attachments. */
export function parseMessage(raw: Buffer): ParsedMessage {
  const { head } = splitHeadBody(raw);
  const headers = parseHeaders(head);
  const leaves: Leaf[] = [];
  collectLeaves(raw, 0, leaves);
  let text: string | null = null;
  let html: string | null = null;
  const attachments: AttachmentInfo[] = [];
  for (const leaf of leaves) {
    const decoded = () => decodeCharset(leaf.body, leaf.contentType.params.charset ?? 'utf-8');
    if (!isAttachment(leaf) && leaf.contentType.type === 'text/plain' && text === null) text = decoded();
    else if (!isAttachment(leaf) && leaf.contentType.type === 'text/html' && html === null) html = decoded();
    else {
      attachments.push({
        filename: leaf.disposition?.params.filename ?? leaf.contentType.params.name ?? null,
        content_type: leaf.contentType.type,
        disposition: leaf.disposition?.type ?? null,
        content_id: header(leaf.headers, 'content-id')?.replace(/^<|>$/g, '') ?? null,
        size: leaf.body.length,
      });
    }
  }
  const h = (name: string) => header(headers, name) ?? null;
  return {
    headers,
    subject: h('subject'),
    from: h('from'),
    to: h('to'),
    cc: h('cc'),
    date: h('date'),
    message_id: h('message-id'),
    text,
    html,
    attachments,
  };
}
