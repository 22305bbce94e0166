/**
 * A growable UTF-8 byte buffer that JSON is written into directly: values coming from the database
 * as bytes are copied (and escaped where needed) without ever becoming JS strings or objects.
 */
export class JsonWriter {
  buf: Uint8Array;
  len = 0;

  constructor(capacity = 64 * 1024) {
    this.buf = new Uint8Array(capacity);
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** Hands over the bytes written so far and starts over with a fresh buffer of the same size. */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.len);
    this.buf = new Uint8Array(this.buf.length);
    this.len = 0;
    return out;
  }

  byte(b: number): void {
    if (this.len === this.buf.length) this.ensure(1);
    this.buf[this.len++] = b;
  }

  /** Writes an ASCII-only string (numbers, keywords). */
  ascii(s: string): void {
    const n = s.length;
    this.ensure(n);
    const buf = this.buf;
    let len = this.len;
    for (let i = 0; i < n; i++) buf[len++] = s.charCodeAt(i);
    this.len = len;
  }

  bytes(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.ensure(n);
    if (n < 32) {
      const buf = this.buf;
      let len = this.len;
      for (let i = start; i < end; i++) buf[len++] = src[i]!;
      this.len = len;
    } else {
      this.buf.set(src.subarray(start, end), this.len);
      this.len += n;
    }
  }

  nul(): void {
    this.ensure(4);
    const buf = this.buf;
    buf[this.len] = 0x6e; // n
    buf[this.len + 1] = 0x75; // u
    buf[this.len + 2] = 0x6c; // l
    buf[this.len + 3] = 0x6c; // l
    this.len += 4;
  }

  /** A JSON string from UTF-8 bytes: quotes, backslashes and control characters are escaped. */
  quotedBytes(src: Uint8Array, start: number, end: number): void {
    this.ensure(end - start + 2);
    let buf = this.buf;
    let len = this.len;
    buf[len++] = 0x22;
    for (let i = start; i < end; i++) {
      const c = src[i]!;
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
        buf[len++] = c;
        continue;
      }
      // Escapes are at most 6 bytes; make room for them and for the rest of the value.
      this.len = len;
      this.ensure(6 + end - i + 1);
      buf = this.buf;
      len = writeEscape(buf, len, c);
    }
    buf[len++] = 0x22;
    this.len = len;
  }

  /** A JSON string from a JS string, encoded as UTF-8 (lone surrogates become U+FFFD). */
  quotedString(s: string): void {
    const n = s.length;
    // At most 3 bytes per UTF-16 unit; escapes (6 bytes) make room for themselves.
    this.ensure(n * 3 + 2);
    let buf = this.buf;
    let len = this.len;
    buf[len++] = 0x22;
    for (let i = 0; i < n; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        if (c >= 0x20 && c !== 0x22 && c !== 0x5c) buf[len++] = c;
        else {
          this.len = len;
          this.ensure(6 + (n - i) * 3 + 1);
          buf = this.buf;
          len = writeEscape(buf, len, c);
        }
        continue;
      }
      if (c < 0x800) {
        buf[len++] = 0xc0 | (c >> 6);
        buf[len++] = 0x80 | (c & 0x3f);
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = i + 1 < n ? s.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          buf[len++] = 0xf0 | (cp >> 18);
          buf[len++] = 0x80 | ((cp >> 12) & 0x3f);
          buf[len++] = 0x80 | ((cp >> 6) & 0x3f);
          buf[len++] = 0x80 | (cp & 0x3f);
          i++;
          continue;
        }
        c = 0xfffd;
      }
      buf[len++] = 0xe0 | (c >> 12);
      buf[len++] = 0x80 | ((c >> 6) & 0x3f);
      buf[len++] = 0x80 | (c & 0x3f);
    }
    buf[len++] = 0x22;
    this.len = len;
  }
}

const HEX = '0123456789abcdef';

function writeEscape(buf: Uint8Array, len: number, c: number): number {
  buf[len++] = 0x5c;
  switch (c) {
    case 0x22:
      buf[len++] = 0x22;
      return len;
    case 0x5c:
      buf[len++] = 0x5c;
      return len;
    case 0x0a:
      buf[len++] = 0x6e;
      return len; // \n
    case 0x0d:
      buf[len++] = 0x72;
      return len; // \r
    case 0x09:
      buf[len++] = 0x74;
      return len; // \t
    case 0x08:
      buf[len++] = 0x62;
      return len; // \b
    case 0x0c:
      buf[len++] = 0x66;
      return len; // \f
    default:
      buf[len++] = 0x75; // \u00XX
      buf[len++] = 0x30;
      buf[len++] = 0x30;
      buf[len++] = HEX.charCodeAt(c >> 4);
      buf[len++] = HEX.charCodeAt(c & 15);
      return len;
  }
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_CODES = Uint8Array.from(B64, (ch) => ch.charCodeAt(0));

/** Writes `bytes` as a quoted base64 string. */
export function writeBase64(w: JsonWriter, bytes: Uint8Array, start = 0, end = bytes.length): void {
  const n = end - start;
  w.ensure(Math.ceil(n / 3) * 4 + 2);
  const buf = w.buf;
  let len = w.len;
  buf[len++] = 0x22;
  let i = start;
  for (; i + 2 < end; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    buf[len++] = B64_CODES[v >> 18]!;
    buf[len++] = B64_CODES[(v >> 12) & 63]!;
    buf[len++] = B64_CODES[(v >> 6) & 63]!;
    buf[len++] = B64_CODES[v & 63]!;
  }
  if (i < end) {
    const two = i + 1 < end;
    const v = (bytes[i]! << 16) | (two ? bytes[i + 1]! << 8 : 0);
    buf[len++] = B64_CODES[v >> 18]!;
    buf[len++] = B64_CODES[(v >> 12) & 63]!;
    buf[len++] = two ? B64_CODES[(v >> 6) & 63]! : 0x3d;
    buf[len++] = 0x3d;
  }
  buf[len++] = 0x22;
  w.len = len;
}

/** Postgres `\x0a1b…` hex text → the bytes it spells. */
export function hexToBytes(src: Uint8Array, start: number, end: number): Uint8Array {
  const out = new Uint8Array((end - start) >> 1);
  for (let i = start, j = 0; i + 1 < end; i += 2, j++) out[j] = (hexValue(src[i]!) << 4) | hexValue(src[i + 1]!);
  return out;
}

function hexValue(c: number): number {
  if (c <= 0x39) return c - 0x30;
  return (c | 0x20) - 0x57;
}
