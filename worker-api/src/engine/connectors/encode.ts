import { Kind } from '../types.ts';
import { hexToBytes, writeBase64, type JsonWriter } from './json-writer.ts';

/**
 * Writers of single values as JSON, one per value kind (see `Kind` in engine/types.ts for the rules).
 * `encodeText` takes the database's text form as UTF-8 bytes (Postgres); `encodeValue` takes what a
 * driver hands out as JS values (mysql2) and routes textual values through `encodeText`, so both
 * families produce the same JSON for the same value. Both return the value's numeric sort key for
 * the field statistics (NaN when the value sorts as text).
 */

const QUOTE = 0x22;
const MINUS = 0x2d;
const DOT = 0x2e;

const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;

export function encodeText(kind: Kind, src: Uint8Array, w: JsonWriter, elementKind: Kind = Kind.Text): number {
  return encodeSpan(kind, src, 0, src.length, w, elementKind);
}

/**
 * Like `encodeText`, for the value at `src[start, end)`: a reader of the wire protocol hands cells
 * as spans of its receive buffer, so that no per-cell view is created.
 */
export function encodeSpan(kind: Kind, src: Uint8Array, start: number, end: number, w: JsonWriter, elementKind: Kind = Kind.Text): number {
  switch (kind) {
    case Kind.Int:
      w.bytes(src, start, end);
      return parseNumber(src, start, end);
    case Kind.BigInt:
      return writeBigInt(src, start, end, w);
    case Kind.Float:
    case Kind.Decimal:
      return writeNumber(src, start, end, w);
    case Kind.Bool: {
      const t = src[start] === 0x74 || src[start] === 0x31; // 't' (Postgres) or '1'
      w.ascii(t ? 'true' : 'false');
      return t ? 1 : 0;
    }
    case Kind.Json:
      w.bytes(src, start, end);
      return NaN;
    case Kind.DateTime:
      writeDateTime(src, start, end, w);
      return NaN;
    case Kind.Date:
      if (isZeroDate(src, start, end)) w.nul();
      else w.quotedBytes(src, start, end);
      return NaN;
    case Kind.Time:
      writeTime(src, start, end, w);
      return NaN;
    case Kind.Binary:
      if (src[start] === 0x5c && src[start + 1] === 0x78) writeBase64(w, hexToBytes(src, start + 2, end));
      else writeBase64(w, src, start, end);
      return NaN;
    case Kind.Array:
      writePgArray(src.subarray(start, end), w, elementKind);
      return NaN;
    default:
      w.quotedBytes(src, start, end);
      return NaN;
  }
}

let scratch = new Uint8Array(64);

/** An ASCII string (digits, dates) as bytes in a reused buffer. */
function asciiBytes(s: string): Uint8Array {
  if (s.length > scratch.length) scratch = new Uint8Array(s.length * 2);
  for (let i = 0; i < s.length; i++) scratch[i] = s.charCodeAt(i);
  return scratch.subarray(0, s.length);
}

const textEncoder = new TextEncoder();

export function encodeValue(kind: Kind, v: unknown, w: JsonWriter): number {
  if (v === null || v === undefined) {
    w.nul();
    return NaN;
  }
  if (typeof v === 'number') {
    if (kind === Kind.Bool) {
      w.ascii(v !== 0 ? 'true' : 'false');
      return v !== 0 ? 1 : 0;
    }
    if (!Number.isFinite(v)) {
      w.nul();
      return NaN;
    }
    w.ascii(String(v));
    return v;
  }
  if (typeof v === 'bigint') return encodeText(kind === Kind.Bool ? Kind.Bool : Kind.BigInt, asciiBytes(v.toString()), w);
  if (typeof v === 'string') {
    switch (kind) {
      case Kind.Text:
      case Kind.Other:
        w.quotedString(v);
        return NaN;
      case Kind.Json: {
        const bytes = textEncoder.encode(v);
        w.bytes(bytes, 0, bytes.length);
        return NaN;
      }
      case Kind.Binary:
        return encodeText(Kind.Binary, textEncoder.encode(v), w);
      default:
        return encodeText(kind, asciiBytes(v), w);
    }
  }
  if (v instanceof Uint8Array) {
    if (kind === Kind.Bool) {
      const t = v.some((b) => b !== 0);
      w.ascii(t ? 'true' : 'false');
      return t ? 1 : 0;
    }
    if (kind === Kind.Int || kind === Kind.BigInt) return encodeText(Kind.BigInt, asciiBytes(bitsToInteger(v)), w);
    if (kind === Kind.Binary) {
      writeBase64(w, v);
      return NaN;
    }
    return encodeText(kind, v, w);
  }
  if (typeof v === 'boolean') {
    w.ascii(v ? 'true' : 'false');
    return v ? 1 : 0;
  }
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) w.nul();
    else encodeText(kind === Kind.Date ? Kind.Date : Kind.DateTime, asciiBytes(v.toISOString().slice(0, kind === Kind.Date ? 10 : 23)), w);
    return NaN;
  }
  // Anything else a driver produces (geometry objects, arrays): its JSON form.
  const json = JSON.stringify(v);
  const bytes = textEncoder.encode(json ?? 'null');
  w.bytes(bytes, 0, bytes.length);
  return NaN;
}

/** A BIT(n) value (big-endian bytes) as decimal digits. */
function bitsToInteger(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n.toString();
}

/** Parses a decimal number from ASCII bytes; exact for integers, close enough for sorting otherwise. */
function parseNumber(src: Uint8Array, start: number, end: number): number {
  let i = start;
  const neg = src[i] === MINUS;
  if (neg || src[i] === 0x2b) i++;
  let v = 0;
  for (; i < end; i++) {
    const d = src[i]! - 0x30;
    if (d < 0 || d > 9) break;
    v = v * 10 + d;
  }
  if (i < end && src[i] === DOT) {
    let scale = 1;
    let f = 0;
    for (i++; i < end; i++) {
      const d = src[i]! - 0x30;
      if (d < 0 || d > 9) break;
      if (scale < 1e15) {
        f = f * 10 + d;
        scale *= 10;
      }
    }
    v += f / scale;
  }
  if (i < end) {
    // An exponent or something unusual: let the engine parse it.
    let s = '';
    for (let j = start; j < end; j++) s += String.fromCharCode(src[j]!);
    return Number(s);
  }
  return neg ? -v : v;
}

/** Floats and decimals: the database's digits as a JSON number; NaN and ±Infinity become null. */
function writeNumber(src: Uint8Array, start: number, end: number, w: JsonWriter): number {
  const first = src[start] === MINUS ? src[start + 1] : src[start];
  if (start >= end || !isDigit(first)) {
    w.nul();
    return NaN;
  }
  w.bytes(src, start, end);
  return parseNumber(src, start, end);
}

const MAX_SAFE = '9007199254740991';

/** 64-bit integers: a JSON number while exact in a double, else the digits as a string. */
function writeBigInt(src: Uint8Array, start: number, end: number, w: JsonWriter): number {
  const neg = src[start] === MINUS ? 1 : 0;
  const digits = end - start - neg;
  let safe = digits < 16;
  if (digits === 16) {
    safe = true;
    for (let i = 0; i < 16; i++) {
      const d = src[start + neg + i]!;
      const m = MAX_SAFE.charCodeAt(i);
      if (d !== m) {
        safe = d < m;
        break;
      }
    }
  }
  if (safe) w.bytes(src, start, end);
  else w.quotedBytes(src, start, end);
  return parseNumber(src, start, end);
}

/** `0000-00-00…`, MySQL's zero date. */
function isZeroDate(src: Uint8Array, start = 0, end = src.length): boolean {
  const s = start;
  return end - s >= 10 && src[s] === 0x30 && src[s + 1] === 0x30 && src[s + 2] === 0x30 && src[s + 3] === 0x30 && src[s + 5] === 0x30 && src[s + 6] === 0x30;
}

/** Writes `.ffffff` without trailing zeros (nothing when all zeros); returns the index after the digits. */
function writeFraction(src: Uint8Array, i: number, end: number, w: JsonWriter): number {
  if (i >= end || src[i] !== DOT) return i;
  let j = i + 1;
  while (j < end && isDigit(src[j])) j++;
  let last = j;
  while (last > i + 1 && src[last - 1] === 0x30) last--;
  if (last > i + 1) w.bytes(src, i, last);
  return j;
}

/** True when the offset at `i` (`+HH[:MM[:SS]]`, or nothing) is zero. */
function isUtcOffset(src: Uint8Array, i: number, end: number): boolean {
  for (let j = i + 1; j < end; j++) if (src[j] !== 0x30 && src[j] !== 0x3a) return false;
  return true;
}

const digits = (src: Uint8Array, i: number, n: number) => {
  let v = 0;
  for (let j = i; j < i + n; j++) v = v * 10 + (src[j]! - 0x30);
  return v;
};

/**
 * `YYYY-MM-DD HH:MM:SS[.f][+HH[:MM[:SS]]]` → `"YYYY-MM-DDTHH:MM:SS[.f]Z"`: values with an offset (the
 * session time zone's) are moved to UTC, so an instant always reads the same; values without one are
 * written as they are, with `Z`. Anything else (BC dates, years past 9999, infinity) keeps its text.
 */
function writeDateTime(src: Uint8Array, start: number, end: number, w: JsonWriter): void {
  const s = start;
  if (end - s < 19 || src[s + 4] !== MINUS || (src[s + 10] !== 0x20 && src[s + 10] !== 0x54) || src[end - 1] === 0x43 /* BC */) {
    w.quotedBytes(src, start, end);
    return;
  }
  if (isZeroDate(src, start, end)) {
    w.nul();
    return;
  }
  let offsetAt = s + 19;
  if (src[offsetAt] === DOT) for (offsetAt++; offsetAt < end && isDigit(src[offsetAt]); offsetAt++);
  w.byte(QUOTE);
  if (offsetAt >= end || isUtcOffset(src, offsetAt, end)) {
    w.bytes(src, s, s + 10);
    w.byte(0x54); // T
    w.bytes(src, s + 11, s + 19);
  } else {
    const sign = src[offsetAt] === MINUS ? -1 : 1;
    const rest = end - offsetAt - 1;
    const offset = digits(src, offsetAt + 1, 2) * 3600 + (rest >= 5 ? digits(src, offsetAt + 4, 2) * 60 : 0) + (rest >= 8 ? digits(src, offsetAt + 7, 2) : 0);
    const d = new Date(0);
    d.setUTCFullYear(digits(src, s, 4), digits(src, s + 5, 2) - 1, digits(src, s + 8, 2));
    d.setUTCHours(digits(src, s + 11, 2), digits(src, s + 14, 2), digits(src, s + 17, 2) - sign * offset, 0);
    w.ascii(d.toISOString().slice(0, 19));
  }
  writeFraction(src, s + 19, end, w);
  w.byte(0x5a); // Z
  w.byte(QUOTE);
}

/** `HH:MM:SS[.f][+HH]` with trailing zeros of the fraction dropped; the offset is kept as is. */
function writeTime(src: Uint8Array, start: number, end: number, w: JsonWriter): void {
  let i = start;
  while (i < end && src[i] !== DOT && src[i] !== 0x2b && !(src[i] === MINUS && i > start)) i++;
  w.byte(QUOTE);
  w.bytes(src, start, i);
  i = writeFraction(src, i, end, w);
  w.bytes(src, i, end);
  w.byte(QUOTE);
}

/**
 * A Postgres array literal (`{1,2,NULL}`, `{{"a b",c},{d,e}}`, `[0:1]={…}`) as nested JSON arrays whose
 * elements are written with the element kind.
 */
function writePgArray(src: Uint8Array, w: JsonWriter, elementKind: Kind): void {
  const end = src.length;
  let i = 0;
  if (src[0] === 0x5b) {
    // Explicit bounds `[1:3]=`: skip them.
    while (i < end && src[i] !== 0x3d) i++;
    i++;
  }
  const element = new Uint8Array(end);
  let depth = 0;
  let needComma = false;
  while (i < end) {
    const c = src[i]!;
    if (c === 0x7b) {
      if (needComma) w.byte(0x2c);
      w.byte(0x5b);
      depth++;
      needComma = false;
      i++;
    } else if (c === 0x7d) {
      w.byte(0x5d);
      depth--;
      needComma = true;
      i++;
      if (depth === 0) return;
    } else if (c === 0x2c || c === 0x20) {
      i++;
    } else {
      if (needComma) w.byte(0x2c);
      needComma = true;
      let n = 0;
      if (c === QUOTE) {
        for (i++; i < end && src[i] !== QUOTE; i++) {
          if (src[i] === 0x5c) i++;
          element[n++] = src[i]!;
        }
        i++;
      } else {
        const startEl = i;
        while (i < end && src[i] !== 0x2c && src[i] !== 0x7d) element[n++] = src[i++]!;
        if (
          n === 4 &&
          i - startEl === 4 &&
          (element[0]! | 0x20) === 0x6e &&
          (element[1]! | 0x20) === 0x75 &&
          (element[2]! | 0x20) === 0x6c &&
          (element[3]! | 0x20) === 0x6c
        ) {
          w.nul();
          continue;
        }
      }
      encodeText(elementKind, element.slice(0, n), w);
    }
  }
}
