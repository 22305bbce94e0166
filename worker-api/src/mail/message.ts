/**
 * RFC 5322 / MIME message building: headers (encoded words for non-ASCII, folded), Date and Message-ID,
 * text and HTML as multipart/alternative, inline images (Content-ID) in a multipart/related with the
 * HTML, attachments as multipart/mixed in base64 lines of 76 characters. Bcc never appears in the
 * headers, only in the envelope. Pure: the clock and randomness can be handed in (tests do).
 */
import { addressListTokens, parseMailbox, parseMailboxes, type AddressInput, type Mailbox } from './address.ts';
import { base64Lines, foldHeader, headerText, isPlainAscii, quotedPrintable, rfc5322Date, toCrlf } from './encode.ts';

export interface Attachment {
  filename: string;
  /** Bytes, or text (sent as UTF-8). */
  content: Uint8Array | string;
  /** Default: guessed from the file name's extension, else application/octet-stream. */
  contentType?: string;
  /** Set for an image the HTML shows with `<img src="cid:…">`: sent inline beside the HTML. */
  contentId?: string;
}

export interface MailMessage {
  /** One address, `Name <addr>`, a comma-separated list, or an array of them. */
  to?: AddressInput | AddressInput[];
  cc?: AddressInput | AddressInput[];
  bcc?: AddressInput | AddressInput[];
  replyTo?: AddressInput;
  subject: string;
  text?: string;
  html?: string;
  attachments?: Attachment[];
}

export interface BuildOptions {
  from: Mailbox;
  date?: Date;
  messageId?: string;
  /** Makes multipart boundaries (default: random). */
  boundary?: () => string;
}

export interface BuiltMessage {
  envelope: { from: string; to: string[] };
  messageId: string;
  /** Headers and body, CRLF line ends, not yet dot-stuffed. */
  raw: string;
}

interface Part {
  headers: string[];
  body: string;
}

const MIME_TYPES: Record<string, string> = {
  csv: 'text/csv',
  txt: 'text/plain',
  html: 'text/html',
  json: 'application/json',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
  zip: 'application/zip',
};

function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

const defaultBoundary = () => `=_cairn_${randomHex(12)}`;

export function guessContentType(filename: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
  return (ext && MIME_TYPES[ext]) || 'application/octet-stream';
}

/** 7bit when the text is printable ASCII in lines a transport accepts, else quoted-printable. */
function textPart(subtype: 'plain' | 'html', text: string): Part {
  const crlf = toCrlf(text);
  const lines = crlf.split('\r\n');
  const sevenBit = lines.every((l) => isPlainAscii(l) && l.length <= 998);
  return {
    headers: [`Content-Type: text/${subtype}; charset=utf-8`, `Content-Transfer-Encoding: ${sevenBit ? '7bit' : 'quoted-printable'}`],
    body: sevenBit ? crlf : quotedPrintable(text),
  };
}

/** A MIME parameter: quoted ASCII, or RFC 2231 `name*=UTF-8''…` plus an ASCII stand-in for old readers. */
function fileParam(key: string, filename: string): string {
  const clean = filename.replace(/[\r\n"\\]+/g, '_');
  if (isPlainAscii(clean)) return `${key}="${clean}"`;
  const ascii = clean.normalize('NFKD').replace(/[^\x20-\x7e]/g, '_');
  const pct = [...new TextEncoder().encode(filename.replace(/[\r\n]+/g, ' '))]
    .map((b) => (/[A-Za-z0-9!#$&+.^_`|~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
  return `${key}="${ascii}";\r\n ${key}*=UTF-8''${pct}`;
}

function attachmentPart(a: Attachment, inline: boolean): Part {
  const bytes = typeof a.content === 'string' ? new TextEncoder().encode(a.content) : a.content;
  const type = (a.contentType ?? guessContentType(a.filename)).replace(/[\r\n;]+/g, '');
  const headers = [
    `Content-Type: ${type};\r\n ${fileParam('name', a.filename)}`,
    'Content-Transfer-Encoding: base64',
    `Content-Disposition: ${inline ? 'inline' : 'attachment'};\r\n ${fileParam('filename', a.filename)}`,
  ];
  if (inline && a.contentId) headers.push(`Content-ID: <${a.contentId.replace(/[<>\s]+/g, '')}>`);
  return { headers, body: base64Lines(bytes) };
}

function render(part: Part): string {
  return `${part.headers.join('\r\n')}\r\n\r\n${part.body}`;
}

/** A multipart whose boundary is guaranteed not to occur in any of its parts. */
function multipart(subtype: 'alternative' | 'related' | 'mixed', parts: Part[], boundary: () => string, params = ''): Part {
  const rendered = parts.map(render);
  let b = boundary();
  for (let tries = 0; rendered.some((r) => r.includes(`--${b}`)); tries++) {
    if (tries > 20) throw new Error('could not find a multipart boundary absent from the content');
    b = `${boundary()}_${randomHex(4)}`;
  }
  return {
    headers: [`Content-Type: multipart/${subtype}; boundary="${b}"${params}`],
    body: `This is a multi-part message in MIME format.\r\n${rendered.map((r) => `--${b}\r\n${r}\r\n`).join('')}--${b}--`,
  };
}

/** The body tree: mixed(alternative(text, related(html, inline images)), attachments…), minus empty levels. */
function bodyTree(mail: MailMessage, boundary: () => string): Part {
  const hasHtml = mail.html !== undefined;
  const attachments = mail.attachments ?? [];
  const inline = hasHtml ? attachments.filter((a) => a.contentId) : [];
  const regular = attachments.filter((a) => !inline.includes(a));
  const texts: Part[] = [];
  if (mail.text !== undefined || !hasHtml) texts.push(textPart('plain', mail.text ?? ''));
  if (hasHtml) {
    const html = textPart('html', mail.html!);
    texts.push(inline.length ? multipart('related', [html, ...inline.map((a) => attachmentPart(a, true))], boundary, '; type="text/html"') : html);
  }
  const root = texts.length > 1 ? multipart('alternative', texts, boundary) : texts[0]!;
  return regular.length ? multipart('mixed', [root, ...regular.map((a) => attachmentPart(a, false))], boundary) : root;
}

function uniqueAddresses(lists: Mailbox[][]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const mb of lists.flat()) {
    const key = mb.address.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      out.push(mb.address);
    }
  }
  return out;
}

/** The message and its envelope; throws AddressError for a bad address and Error when nobody would receive it. */
export function buildMessage(mail: MailMessage, opts: BuildOptions): BuiltMessage {
  const to = parseMailboxes(mail.to);
  const cc = parseMailboxes(mail.cc);
  const bcc = parseMailboxes(mail.bcc);
  const recipients = uniqueAddresses([to, cc, bcc]);
  if (!recipients.length) throw new Error('the message has no recipient (to, cc and bcc are empty)');
  const boundary = opts.boundary ?? defaultBoundary;
  const domain = opts.from.address.split('@')[1]!;
  const messageId = opts.messageId ?? `<${randomHex(16)}@${domain}>`;
  const headers = [
    foldHeader('From', addressListTokens([opts.from])),
    to.length ? foldHeader('To', addressListTokens(to)) : 'To: undisclosed-recipients:;',
    ...(cc.length ? [foldHeader('Cc', addressListTokens(cc))] : []),
    ...(mail.replyTo ? [foldHeader('Reply-To', addressListTokens([parseMailbox(mail.replyTo)]))] : []),
    foldHeader('Subject', headerText(mail.subject)),
    `Date: ${rfc5322Date(opts.date ?? new Date())}`,
    `Message-ID: ${messageId}`,
    'MIME-Version: 1.0',
  ];
  const body = bodyTree(mail, boundary);
  return {
    envelope: { from: opts.from.address, to: recipients },
    messageId,
    raw: `${[...headers, ...body.headers].join('\r\n')}\r\n\r\n${body.body}\r\n`,
  };
}

/** SMTP DATA content (RFC 5321 §4.5.2): a line starting with "." gets another, then the final ".". */
export function dotStuff(raw: string): string {
  const crlf = toCrlf(raw);
  const stuffed = crlf.replace(/(^|\r\n)\./g, '$1..');
  return `${stuffed}${stuffed.endsWith('\r\n') ? '' : '\r\n'}.\r\n`;
}

/** `Name <addr>` of MAIL_FROM (default `Cairn <no-reply@cairn.local>`). */
export function senderOf(mailFrom: string | undefined): Mailbox {
  return parseMailbox(mailFrom?.trim() || 'Cairn <no-reply@cairn.local>');
}
