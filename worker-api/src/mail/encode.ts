/**
 * Encodings of an Internet message: RFC 2047 encoded words for non-ASCII header text, quoted-printable
 * and base64 bodies (RFC 2045, lines of at most 76 characters), header folding (RFC 5322 §2.2.3) and
 * the RFC 5322 date. Pure functions over strings and bytes.
 */

const utf8 = new TextEncoder();
/** Longest line of an encoded body or a folded header (RFC 2045 §6.7/§6.8; RFC 5322 recommends 78). */
const LINE = 76;

/** Printable ASCII and tabs only (no control characters, nothing above 0x7e). */
export function isPlainAscii(s: string): boolean {
  return /^[\t\x20-\x7e]*$/.test(s);
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Base64 in lines of 76 characters, CRLF-separated (a body ends with its last line, no trailing CRLF). */
export function base64Lines(bytes: Uint8Array): string {
  const b64 = bytesToBase64(bytes);
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += LINE) lines.push(b64.slice(i, i + LINE));
  return lines.join('\r\n');
}

const hex = (b: number) => `=${b.toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * Quoted-printable of UTF-8 text with CRLF line ends kept as hard breaks. Soft breaks (`=` at the end)
 * keep every line within 76 characters; an encoded triplet is never split; space or tab at the end of
 * a line is encoded so transports that strip trailing white space cannot change the text.
 */
export function quotedPrintable(text: string): string {
  return toCrlf(text).split('\r\n').map(qpLine).join('\r\n');
}

function qpLine(line: string): string {
  const bytes = utf8.encode(line);
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const last = i === bytes.length - 1;
    const literal = (b >= 33 && b <= 126 && b !== 61) || ((b === 32 || b === 9) && !last);
    const token = literal ? String.fromCharCode(b) : hex(b);
    // Room for the token plus the soft-break "=" (unless this is the line's last token).
    if (current.length + token.length > (last ? LINE : LINE - 1)) {
      out.push(`${current}=`);
      current = '';
    }
    current += token;
  }
  out.push(current);
  return out.join('\r\n');
}

/** Every line end (CRLF, LF or a lone CR) as CRLF. */
export function toCrlf(text: string): string {
  return text.replace(/\r\n|\r|\n/g, '\r\n');
}

/**
 * The text as `=?UTF-8?B?…?=` words, never splitting a character. A word may be 75 characters; 36 bytes
 * (48 base64 characters, 60 in all) keep even the first line, `Reply-To: ` plus a word, within 76.
 */
export function encodedWords(text: string): string[] {
  const MAX_BYTES = 36;
  const chunks: number[][] = [[]];
  for (const ch of text) {
    const bytes = utf8.encode(ch);
    if (chunks.at(-1)!.length + bytes.length > MAX_BYTES) chunks.push([]);
    chunks.at(-1)!.push(...bytes);
  }
  return chunks.map((c) => `=?UTF-8?B?${bytesToBase64(new Uint8Array(c))}?=`);
}

/**
 * Unstructured header text (Subject, display names) as folding tokens: each token after the first starts
 * with the white space before it, so a fold (CRLF inserted before a token) changes nothing once unfolded.
 * Plain when printable ASCII that cannot be mistaken for an encoded word, else encoded words. Line breaks
 * in the input become spaces (no header injection).
 */
export function headerText(text: string): string[] {
  const flat = text.replace(/[\r\n]+/g, ' ');
  if (isPlainAscii(flat) && !flat.includes('=?')) {
    const tokens = flat.split(/(?=[ \t])/);
    // A word too long to fold (lines may not pass 998 characters) goes out as encoded words instead.
    if (tokens.every((t) => t.length <= 900)) return tokens;
  }
  return encodedWords(flat).map((w, i) => (i === 0 ? w : ` ${w}`));
}

/** `Name: token token…`, folded before a token that would take the line past 76 characters. */
export function foldHeader(name: string, tokens: string[]): string {
  const lines: string[] = [];
  let line = `${name}: ${tokens[0] ?? ''}`;
  for (const token of tokens.slice(1)) {
    if (line.length + token.length > LINE && /^[ \t]/.test(token) && line.trim() !== '') {
      lines.push(line);
      line = token;
    } else line += token;
  }
  lines.push(line);
  return lines.join('\r\n');
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** RFC 5322 §3.3 date-time in UTC: `Tue, 07 Jan 2026 09:05:00 +0000`. */
export function rfc5322Date(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return (
    `${DAYS[d.getUTCDay()]}, ${p(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ` +
    `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`
  );
}
