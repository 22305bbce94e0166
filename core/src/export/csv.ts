import { ByteWriter, utf8 } from './bytes.ts';
import { Cell, END_OF_ROW, RowCursor, unescapeJsonString } from './cells.ts';
import { COLUMN_SEPARATOR_BYTE, DECIMAL_SEPARATOR_BYTE, DEFAULT_CSV_OPTIONS, type CsvOptions } from './options.ts';

/**
 * CSV (RFC 4180) from stored result chunks, written as the chunks arrive:
 * - a header row with the field names, then one line per row, lines ending in CRLF;
 * - the column separator and quote style of the options: `necessary` quotes a field only when it
 *   holds the separator, a double quote, CR or LF; `always` quotes every field except NULLs, so an
 *   empty quoted field (`""`) is an empty string and an empty unquoted one is NULL; quotes inside a
 *   field are doubled;
 * - numbers as the database gave them, with the decimal point of Integer, BigInt and Float fields
 *   replaced by the chosen decimal separator (no thousands separators);
 * - dates and times in ISO 8601 as stored (`2024-05-01`, `2024-05-01T08:00:00Z`), booleans
 *   `true`/`false`, NULL as an empty field, JSON and array values as their JSON text;
 * - UTF-8 with a byte order mark, which makes Excel read the file as UTF-8 (other CSV readers
 *   skip or tolerate it); `bom: false` leaves it out.
 */
export interface ExportField {
  name: string;
  data_type: string;
}

const NUMERIC_TYPES = new Set(['Integer', 'BigInt', 'Float']);
const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const POINT = 0x2e;
export const UTF8_BOM = new Uint8Array([0xef, 0xbb, 0xbf]);

export class CsvWriter {
  readonly out: ByteWriter;
  private readonly sep: number;
  private readonly decimal: number;
  private readonly always: boolean;
  private readonly numeric: boolean[];
  private readonly scratch = new ByteWriter(1024);
  rows = 0;

  constructor(
    readonly fields: readonly ExportField[],
    opts: CsvOptions = DEFAULT_CSV_OPTIONS,
    out = new ByteWriter(),
  ) {
    this.out = out;
    this.sep = COLUMN_SEPARATOR_BYTE[opts.column_separator];
    this.decimal = DECIMAL_SEPARATOR_BYTE[opts.decimal_separator];
    if (this.sep === undefined || this.decimal === undefined) throw new Error('Unknown CSV options.');
    if (this.sep === this.decimal) throw new Error('The decimal separator must differ from the column separator.');
    this.always = opts.quote_style === 'always';
    this.numeric = fields.map((f) => NUMERIC_TYPES.has(f.data_type));
  }

  /** The header row (field names). */
  header(): void {
    this.fields.forEach((f, i) => {
      if (i > 0) this.out.byte(this.sep);
      const name = utf8(f.name);
      this.field(name, 0, name.length);
    });
    this.out.byte(CR);
    this.out.byte(LF);
  }

  /** Every row of one stored chunk. */
  chunk(data: Uint8Array): void {
    const cur = new RowCursor(data);
    const out = this.out;
    while (cur.nextRow()) {
      let col = 0;
      for (;;) {
        const kind = cur.nextCell();
        if (kind === END_OF_ROW) break;
        if (col > 0) out.byte(this.sep);
        this.cell(kind, cur, col);
        col++;
      }
      out.byte(CR);
      out.byte(LF);
      this.rows++;
    }
  }

  private cell(kind: Cell, cur: RowCursor, col: number): void {
    const d = cur.data;
    switch (kind) {
      case Cell.Null:
        return;
      case Cell.Number:
        if (this.always) this.out.byte(QUOTE);
        if (this.numeric[col] && this.decimal !== POINT) this.replacingPoint(d, cur.start, cur.end);
        else this.out.bytes(d, cur.start, cur.end);
        if (this.always) this.out.byte(QUOTE);
        return;
      case Cell.String:
        if (cur.escaped) {
          const s = this.scratch;
          s.len = 0;
          unescapeJsonString(d, cur.start, cur.end, s);
          this.field(s.buf, 0, s.len);
        } else this.field(d, cur.start, cur.end);
        return;
      default: // true, false, nested JSON
        this.field(d, cur.start, cur.end);
    }
  }

  private replacingPoint(src: Uint8Array, start: number, end: number): void {
    const out = this.out;
    out.ensure(end - start);
    for (let i = start; i < end; i++) {
      const b = src[i]!;
      out.buf[out.len++] = b === POINT ? this.decimal : b;
    }
  }

  /** One field's bytes, quoted when the style or its content asks for it. */
  private field(src: Uint8Array, start: number, end: number): void {
    const out = this.out;
    let quote = this.always;
    if (!quote) {
      const sep = this.sep;
      for (let i = start; i < end; i++) {
        const b = src[i]!;
        if (b === sep || b === QUOTE || b === CR || b === LF) {
          quote = true;
          break;
        }
      }
    }
    if (!quote) {
      out.bytes(src, start, end);
      return;
    }
    out.ensure(end - start + 2);
    out.buf[out.len++] = QUOTE;
    for (let i = start; i < end; i++) {
      const b = src[i]!;
      if (b === QUOTE) {
        out.ensure(end - i + 2);
        out.buf[out.len++] = QUOTE;
      }
      out.buf[out.len++] = b;
    }
    out.buf[out.len++] = QUOTE;
  }
}

export interface CsvStreamOptions {
  /** Start with a UTF-8 byte order mark (default true). */
  bom?: boolean;
  /** Hand out output in pieces of about this many bytes (default 64 KiB). */
  flushBytes?: number;
}

/** A CSV file from a result's fields and its chunks, produced piece by piece as the chunks arrive. */
export async function* csvStream(
  fields: readonly ExportField[],
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  opts: CsvOptions = DEFAULT_CSV_OPTIONS,
  stream: CsvStreamOptions = {},
): AsyncGenerator<Uint8Array> {
  const flush = stream.flushBytes ?? 64 * 1024;
  const w = new CsvWriter(fields, opts);
  if (stream.bom ?? true) w.out.bytes(UTF8_BOM);
  w.header();
  for await (const data of chunks) {
    w.chunk(data);
    if (w.out.len >= flush) yield w.out.take();
  }
  if (w.out.len > 0) yield w.out.take();
}
