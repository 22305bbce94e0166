import type { ByteWriter } from './bytes.ts';

/**
 * Reads the cells of a stored result chunk without building JS values per row. A chunk is UTF-8
 * JSON of comma-separated row arrays (`[1,"a",null],[2,"b\"c",{"k":1}]`, see db's result_chunks):
 * the cursor walks it and reports, per cell, its kind and where its bytes are, so writers can copy
 * numbers and plain strings straight through and only decode escaped strings.
 */
export const Cell = {
  Null: 0,
  True: 1,
  False: 2,
  /** A JSON number: `start..end` are its characters. */
  Number: 3,
  /** A JSON string: `start..end` is its content without the quotes; `escaped` when it has backslashes. */
  String: 4,
  /** A nested array or object (JSON and array columns): `start..end` is its JSON text. */
  Raw: 5,
} as const;
export type Cell = (typeof Cell)[keyof typeof Cell];

export const END_OF_ROW = -1;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

export class MalformedChunkError extends Error {
  constructor(at: number) {
    super(`A stored result chunk is not valid row JSON (at byte ${at}).`);
  }
}

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

export class RowCursor {
  pos = 0;
  start = 0;
  end = 0;
  escaped = false;

  constructor(readonly data: Uint8Array) {}

  private skipSpace(): void {
    while (isSpace(this.data[this.pos])) this.pos++;
  }

  /** Moves into the next row; false when the chunk has no more rows. */
  nextRow(): boolean {
    this.skipSpace();
    if (this.data[this.pos] === COMMA) {
      this.pos++;
      this.skipSpace();
    }
    if (this.pos >= this.data.length) return false;
    if (this.data[this.pos] !== OPEN_BRACKET) throw new MalformedChunkError(this.pos);
    this.pos++;
    return true;
  }

  /** The next cell of the current row (its kind), or END_OF_ROW after the last one. */
  nextCell(): Cell | typeof END_OF_ROW {
    const d = this.data;
    this.skipSpace();
    let c = d[this.pos];
    if (c === CLOSE_BRACKET) {
      this.pos++;
      return END_OF_ROW;
    }
    if (c === COMMA) {
      this.pos++;
      this.skipSpace();
      c = d[this.pos];
    }
    switch (c) {
      case QUOTE:
        this.string();
        return Cell.String;
      case 0x6e: // null
        this.literal(4);
        return Cell.Null;
      case 0x74: // true
        this.literal(4);
        return Cell.True;
      case 0x66: // false
        this.literal(5);
        return Cell.False;
      case OPEN_BRACKET:
      case OPEN_BRACE:
        this.nested();
        return Cell.Raw;
      default:
        this.number();
        return Cell.Number;
    }
  }

  private literal(n: number): void {
    if (this.pos + n > this.data.length) throw new MalformedChunkError(this.pos);
    this.start = this.pos;
    this.pos += n;
    this.end = this.pos;
  }

  private string(): void {
    const d = this.data;
    const n = d.length;
    let i = this.pos + 1;
    this.start = i;
    this.escaped = false;
    for (;;) {
      if (i >= n) throw new MalformedChunkError(this.start - 1);
      const b = d[i]!;
      if (b === QUOTE) break;
      if (b === BACKSLASH) {
        this.escaped = true;
        i += 2;
      } else i++;
    }
    this.end = i;
    this.pos = i + 1;
  }

  private number(): void {
    const d = this.data;
    let i = this.pos;
    this.start = i;
    for (;;) {
      const b = d[i];
      // digits, + - . e E
      if (b !== undefined && ((b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x65 || b === 0x45)) i++;
      else break;
    }
    if (i === this.start) throw new MalformedChunkError(i);
    this.end = i;
    this.pos = i;
  }

  private nested(): void {
    const d = this.data;
    const n = d.length;
    let i = this.pos;
    this.start = i;
    let depth = 0;
    for (;;) {
      if (i >= n) throw new MalformedChunkError(this.start);
      const b = d[i]!;
      if (b === QUOTE) {
        i++;
        while (i < n && d[i] !== QUOTE) i += d[i] === BACKSLASH ? 2 : 1;
        i++;
        continue;
      }
      if (b === OPEN_BRACKET || b === OPEN_BRACE) depth++;
      else if (b === CLOSE_BRACKET || b === CLOSE_BRACE) {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      }
      i++;
    }
    this.end = i;
    this.pos = i;
  }
}

const hexValue = (b: number): number => {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
};

function hex4(src: Uint8Array, i: number): number {
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const h = hexValue(src[i + k] ?? 0);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

function writeCodePoint(cp: number, out: ByteWriter): void {
  if (cp < 0x80) out.byte(cp);
  else if (cp < 0x800) {
    out.byte(0xc0 | (cp >> 6));
    out.byte(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out.byte(0xe0 | (cp >> 12));
    out.byte(0x80 | ((cp >> 6) & 0x3f));
    out.byte(0x80 | (cp & 0x3f));
  } else {
    out.byte(0xf0 | (cp >> 18));
    out.byte(0x80 | ((cp >> 12) & 0x3f));
    out.byte(0x80 | ((cp >> 6) & 0x3f));
    out.byte(0x80 | (cp & 0x3f));
  }
}

/**
 * Writes the UTF-8 bytes a JSON string's content stands for (`src[start..end]`, without quotes):
 * escapes decoded, `\uXXXX` pairs joined into one code point, lone surrogates as U+FFFD.
 */
export function unescapeJsonString(src: Uint8Array, start: number, end: number, out: ByteWriter): void {
  let i = start;
  while (i < end) {
    const b = src[i]!;
    if (b !== BACKSLASH) {
      out.byte(b);
      i++;
      continue;
    }
    const e = src[i + 1];
    i += 2;
    switch (e) {
      case 0x6e:
        out.byte(0x0a);
        break; // \n
      case 0x72:
        out.byte(0x0d);
        break; // \r
      case 0x74:
        out.byte(0x09);
        break; // \t
      case 0x62:
        out.byte(0x08);
        break; // \b
      case 0x66:
        out.byte(0x0c);
        break; // \f
      case 0x75: {
        // \uXXXX
        let cp = hex4(src, i);
        i += 4;
        if (cp < 0) {
          cp = 0xfffd;
        } else if (cp >= 0xd800 && cp <= 0xdbff) {
          const low = src[i] === BACKSLASH && src[i + 1] === 0x75 ? hex4(src, i + 2) : -1;
          if (low >= 0xdc00 && low <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            i += 6;
          } else cp = 0xfffd;
        } else if (cp >= 0xdc00 && cp <= 0xdfff) cp = 0xfffd;
        writeCodePoint(cp, out);
        break;
      }
      default: // \" \\ \/ (and anything else: the character itself)
        if (e !== undefined) out.byte(e);
    }
  }
}
