/**
 * A growable byte buffer for the export writers: they write output bytes here and hand the filled
 * buffer on (`take`) once it passes their flush size, so memory is one buffer whatever the row count.
 */
const encoder = new TextEncoder();

export class ByteWriter {
  buf: Uint8Array;
  len = 0;

  constructor(private readonly initial = 64 * 1024) {
    this.buf = new Uint8Array(initial);
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.len + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  byte(b: number): void {
    if (this.len === this.buf.length) this.ensure(1);
    this.buf[this.len++] = b;
  }

  bytes(src: Uint8Array, start = 0, end = src.length): void {
    const n = end - start;
    this.ensure(n);
    if (n < 16) {
      for (let i = start; i < end; i++) this.buf[this.len++] = src[i]!;
      return;
    }
    this.buf.set(src.subarray(start, end), this.len);
    this.len += n;
  }

  /** A string of code points below 0x80 (markup, digits). */
  ascii(s: string): void {
    this.ensure(s.length);
    for (let i = 0; i < s.length; i++) this.buf[this.len++] = s.charCodeAt(i);
  }

  /** Any string, as UTF-8 (lone surrogates become U+FFFD). */
  utf8(s: string): void {
    this.ensure(s.length * 3);
    this.len += encoder.encodeInto(s, this.buf.subarray(this.len)).written;
  }

  /** The bytes written so far, as a new array; the writer starts over with a fresh buffer. */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.len);
    this.buf = new Uint8Array(Math.max(this.initial, 1024));
    this.len = 0;
    return out;
  }
}

export const utf8 = (s: string): Uint8Array => encoder.encode(s);
