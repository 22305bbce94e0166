import { ByteWriter, utf8 } from './bytes.ts';
import { Cell, END_OF_ROW, RowCursor, unescapeJsonString } from './cells.ts';
import type { ExportField } from './csv.ts';
import { sheetNamer } from './names.ts';
import { columnName, contentTypesXml, rootRelsXml, SHEET_TAIL, sheetHeadXml, sheetPath, Style, stylesXml, workbookRelsXml, workbookXml } from './xlsx-parts.ts';
import { zipStream, type ZipEntry } from './zip.ts';

/**
 * An XLSX workbook (Office Open XML) streamed from stored result chunks: one worksheet per result,
 * written row by row into a deflated zip entry, so memory does not grow with the row count.
 *
 * - Row 1 holds the field names (bold, frozen); each result row follows.
 * - Integer, BigInt and Float values are numbers (a BigInt beyond 2^53, stored as digits, stays
 *   text so no digit is lost); booleans are booleans.
 * - Date, DateTime and Time values become Excel serial numbers with a date, date-time or time
 *   format. The wall-clock time is kept as stored (Excel has no time zones: `…T10:00:00+02:00`
 *   shows 10:00). Values Excel cannot show (before 1900, after 9999, infinities) stay text.
 * - Strings are inline strings (no shared-string table, which would grow with the data); characters
 *   XML 1.0 cannot carry are dropped and text is cut at Excel's 32,767 characters per cell.
 * - NULL is an empty cell. JSON and array values are their JSON text.
 * - A sheet holds at most 1,048,576 rows (Excel's limit): a longer result continues on further
 *   sheets named "<name> (2)", … each with the header row again.
 */
export interface XlsxSheet {
  name: string;
  fields: readonly ExportField[];
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
}

export interface XlsxOptions {
  /** Rows per worksheet including the header (Excel: 1,048,576). Lower only in tests. */
  maxRowsPerSheet?: number;
  /** Hand out output in pieces of about this many bytes (default 64 KiB). */
  flushBytes?: number;
  modified?: Date;
  /** Zip method of the worksheets (default deflate). */
  method?: 'deflate' | 'store';
}

export const EXCEL_MAX_ROWS = 1_048_576;
export const EXCEL_MAX_COLUMNS = 16_384;
export const EXCEL_MAX_CELL_CHARS = 32_767;

const Kind = { Text: 0, Number: 1, Boolean: 2, Date: 3, DateTime: 4, Time: 5 } as const;
type Kind = (typeof Kind)[keyof typeof Kind];
const KIND_OF: Record<string, Kind> = {
  Integer: Kind.Number,
  BigInt: Kind.Number,
  Float: Kind.Number,
  Boolean: Kind.Boolean,
  Date: Kind.Date,
  DateTime: Kind.DateTime,
  Time: Kind.Time,
};

const DAY_MS = 86_400_000;
/** Days from Excel's day 0 (1899-12-30, as the 1900 date system counts) to 1970-01-01. */
const EPOCH_OFFSET = 25_569;

const digit = (b: number | undefined) => (b !== undefined && b >= 0x30 && b <= 0x39 ? b - 0x30 : -1);

function digits(d: Uint8Array, i: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const x = digit(d[i + k]);
    if (x < 0) return -1;
    v = v * 10 + x;
  }
  return v;
}

/** `HH:MM:SS[.fff…]` at i → fraction of a day, or -1. */
function timeFraction(d: Uint8Array, i: number, end: number): number {
  if (end - i < 8 || d[i + 2] !== 0x3a || d[i + 5] !== 0x3a) return -1;
  const h = digits(d, i, 2);
  const m = digits(d, i + 3, 2);
  const s = digits(d, i + 6, 2);
  if (h < 0 || m < 0 || s < 0 || h > 24 || m > 59 || s > 60) return -1;
  let frac = 0;
  let j = i + 8;
  if (d[j] === 0x2e) {
    let scale = 0.1;
    for (j++; j < end && digit(d[j]) >= 0; j++) {
      frac += digit(d[j]) * scale;
      scale /= 10;
    }
  }
  return (h * 3600 + m * 60 + s + frac) / 86_400;
}

/** `YYYY-MM-DD` at start → Excel serial day, or -1 when Excel cannot show it. */
function dateSerial(d: Uint8Array, start: number, end: number): number {
  if (end - start < 10 || d[start + 4] !== 0x2d || d[start + 7] !== 0x2d) return -1;
  const y = digits(d, start, 4);
  const mo = digits(d, start + 5, 2);
  const da = digits(d, start + 8, 2);
  if (y < 1900 || mo < 1 || mo > 12 || da < 1 || da > 31) return -1;
  // 1900-01-01 … 1900-02-28 sit before Excel's phantom 1900-02-29; skip them rather than shift.
  if (y === 1900 && mo < 3) return -1;
  return Date.UTC(y, mo - 1, da) / DAY_MS + EPOCH_OFFSET;
}

/** Serial value of a stored Date, DateTime or Time string, or -1. */
export function serialOf(kind: Kind, d: Uint8Array, start: number, end: number): number {
  if (kind === Kind.Time) return timeFraction(d, start, end);
  const day = dateSerial(d, start, end);
  if (day < 0) return -1;
  if (kind === Kind.Date) return end - start === 10 ? day : -1;
  if (end - start === 10) return day;
  if (d[start + 10] !== 0x54 && d[start + 10] !== 0x20) return -1;
  const t = timeFraction(d, start + 11, end);
  return t < 0 ? -1 : day + t;
}

const AMP = utf8('&amp;');
const LT = utf8('&lt;');
const GT = utf8('&gt;');

/**
 * Writes UTF-8 text as XML character data: `& < >` escaped; control characters other than tab,
 * LF and CR and the non-characters U+FFFE/U+FFFF dropped; cut after 32,767 UTF-16 units.
 */
export function writeXmlText(src: Uint8Array, start: number, end: number, out: ByteWriter): void {
  let units = 0;
  const long = end - start > EXCEL_MAX_CELL_CHARS;
  let i = start;
  while (i < end) {
    const b = src[i]!;
    if (long) {
      const lead = b < 0x80 || b >= 0xc0;
      if (lead) {
        units += b >= 0xf0 ? 2 : 1;
        if (units > EXCEL_MAX_CELL_CHARS) return;
      }
    }
    if (b === 0x26) out.bytes(AMP);
    else if (b === 0x3c) out.bytes(LT);
    else if (b === 0x3e) out.bytes(GT);
    else if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) {
      /* dropped */
    } else if (b === 0xef && src[i + 1] === 0xbf && (src[i + 2] === 0xbe || src[i + 2] === 0xbf)) {
      i += 3;
      continue;
    } else out.byte(b);
    i++;
  }
}

const isSpaceByte = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

// Markup as bytes, written without building strings per cell.
const B = {
  rowOpen: utf8('<row r="'),
  rowOpenEnd: utf8('">'),
  rowClose: utf8('</row>'),
  cellOpen: utf8('<c r="'),
  number: utf8('"><v>'),
  valueClose: utf8('</v></c>'),
  inline: utf8('" t="inlineStr"><is><t>'),
  inlinePreserve: utf8('" t="inlineStr"><is><t xml:space="preserve">'),
  header: utf8(`" s="${Style.Header}" t="inlineStr"><is><t>`),
  headerPreserve: utf8(`" s="${Style.Header}" t="inlineStr"><is><t xml:space="preserve">`),
  inlineClose: utf8('</t></is></c>'),
  boolTrue: utf8('" t="b"><v>1</v></c>'),
  boolFalse: utf8('" t="b"><v>0</v></c>'),
  date: utf8(`" s="${Style.Date}"><v>`),
  dateTime: utf8(`" s="${Style.DateTime}"><v>`),
  time: utf8(`" s="${Style.Time}"><v>`),
};

/**
 * The rows of one result as worksheet XML. `part()` writes one worksheet and stops at the row
 * limit; calling it again continues with the next row on a new worksheet.
 */
class SheetRows {
  done = false;
  private readonly it: AsyncIterator<Uint8Array> | Iterator<Uint8Array>;
  private cursor: RowCursor | null = null;
  private readonly kinds: Kind[];
  private readonly letters: Uint8Array[];
  private readonly headerNames: Uint8Array[];
  private readonly widths: number[];
  private readonly scratch = new ByteWriter(1024);
  private readonly out = new ByteWriter();
  /** The current row number's digits. */
  private rowDigits = new Uint8Array(8);
  private rowDigitsLen = 0;

  constructor(
    fields: readonly ExportField[],
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    private readonly opts: Required<Pick<XlsxOptions, 'maxRowsPerSheet' | 'flushBytes'>>,
  ) {
    const cols = fields.slice(0, EXCEL_MAX_COLUMNS);
    this.kinds = cols.map((f) => KIND_OF[f.data_type] ?? Kind.Text);
    this.letters = cols.map((_, i) => utf8(columnName(i)));
    this.headerNames = cols.map((f) => utf8(f.name));
    this.widths = cols.map((f, i) => {
      const k = this.kinds[i]!;
      const min = k === Kind.DateTime ? 20 : k === Kind.Date ? 12 : 10;
      return Math.min(Math.max(min, f.name.length + 2), 60);
    });
    this.it = Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : chunks[Symbol.iterator]();
  }

  private async nextCursor(): Promise<RowCursor | null> {
    for (;;) {
      if (this.cursor) {
        const c = this.cursor;
        const at = c.pos;
        if (c.nextRow()) {
          // Step back so the row is read by the caller, which calls nextRow() itself.
          c.pos = at;
          return c;
        }
        this.cursor = null;
      }
      const next = await this.it.next();
      if (next.done) return null;
      this.cursor = new RowCursor(next.value);
    }
  }

  /** Stops reading the chunks early (the download was abandoned). */
  async close(): Promise<void> {
    await this.it.return?.();
  }

  async *part(): AsyncGenerator<Uint8Array> {
    const out = this.out;
    out.ascii(sheetHeadXml(this.widths));
    let r = 1;
    this.startRow(r);
    for (let i = 0; i < this.headerNames.length; i++) {
      const name = this.headerNames[i]!;
      this.cellRef(i);
      const preserve = name.length > 0 && (isSpaceByte(name[0]) || isSpaceByte(name[name.length - 1]));
      out.bytes(preserve ? B.headerPreserve : B.header);
      writeXmlText(name, 0, name.length, out);
      out.bytes(B.inlineClose);
    }
    out.bytes(B.rowClose);
    for (;;) {
      if (r >= this.opts.maxRowsPerSheet) break;
      const c = await this.nextCursor();
      if (!c) {
        this.done = true;
        break;
      }
      while (r < this.opts.maxRowsPerSheet && c.nextRow()) {
        r++;
        this.dataRow(c, r);
        if (out.len >= this.opts.flushBytes) yield out.take();
      }
    }
    out.ascii(SHEET_TAIL);
    yield out.take();
    if (!this.done && !(await this.nextCursor())) this.done = true;
  }

  /** `<row r="n">`, remembering n's digits for the cell references. */
  private startRow(r: number): void {
    let n = r;
    let len = 0;
    const d = this.rowDigits;
    do {
      d[len++] = 0x30 + (n % 10);
      n = Math.floor(n / 10);
    } while (n > 0);
    d.subarray(0, len).reverse();
    this.rowDigitsLen = len;
    const out = this.out;
    out.bytes(B.rowOpen);
    out.bytes(d, 0, len);
    out.bytes(B.rowOpenEnd);
  }

  /** `<c r="B12` — the caller writes the rest of the opening tag. */
  private cellRef(col: number): void {
    const out = this.out;
    out.bytes(B.cellOpen);
    out.bytes(this.letters[col]!);
    out.bytes(this.rowDigits, 0, this.rowDigitsLen);
  }

  private inlineText(src: Uint8Array, start: number, end: number): void {
    const out = this.out;
    const preserve = end > start && (isSpaceByte(src[start]) || isSpaceByte(src[end - 1]));
    out.bytes(preserve ? B.inlinePreserve : B.inline);
    writeXmlText(src, start, end, out);
    out.bytes(B.inlineClose);
  }

  private dataRow(c: RowCursor, r: number): void {
    const out = this.out;
    const d = c.data;
    this.startRow(r);
    for (let col = 0; ; col++) {
      const cell = c.nextCell();
      if (cell === END_OF_ROW) break;
      if (cell === Cell.Null || col >= this.kinds.length) continue;
      const kind = this.kinds[col]!;
      this.cellRef(col);
      switch (cell) {
        case Cell.Number:
          out.bytes(B.number);
          out.bytes(d, c.start, c.end);
          out.bytes(B.valueClose);
          break;
        case Cell.True:
          out.bytes(B.boolTrue);
          break;
        case Cell.False:
          out.bytes(B.boolFalse);
          break;
        case Cell.String: {
          if (kind >= Kind.Date && !c.escaped) {
            const serial = serialOf(kind, d, c.start, c.end);
            if (serial >= 0) {
              out.bytes(kind === Kind.Date ? B.date : kind === Kind.DateTime ? B.dateTime : B.time);
              out.ascii(String(serial));
              out.bytes(B.valueClose);
              break;
            }
          }
          if (c.escaped) {
            const s = this.scratch;
            s.len = 0;
            unescapeJsonString(d, c.start, c.end, s);
            this.inlineText(s.buf, 0, s.len);
          } else this.inlineText(d, c.start, c.end);
          break;
        }
        default: // nested JSON
          this.inlineText(d, c.start, c.end);
      }
    }
    out.bytes(B.rowClose);
  }
}

/** The workbook, in pieces: one worksheet (or more, past the row limit) per sheet given. */
export async function* xlsxStream(sheets: AsyncIterable<XlsxSheet> | Iterable<XlsxSheet>, opts: XlsxOptions = {}): AsyncGenerator<Uint8Array> {
  const limits = { maxRowsPerSheet: opts.maxRowsPerSheet ?? EXCEL_MAX_ROWS, flushBytes: opts.flushBytes ?? 64 * 1024 };
  if (limits.maxRowsPerSheet < 2 || limits.maxRowsPerSheet > EXCEL_MAX_ROWS) throw new Error('maxRowsPerSheet must be 2 … 1,048,576.');
  const modified = opts.modified ?? new Date();
  const names: string[] = [];
  const nameOf = sheetNamer();
  async function* entries(): AsyncGenerator<ZipEntry> {
    for await (const sheet of sheets) {
      const rows = new SheetRows(sheet.fields, sheet.chunks, limits);
      try {
        do {
          names.push(nameOf(sheet.name));
          yield { name: sheetPath(names.length), data: rows.part(), modified, method: opts.method };
        } while (!rows.done);
      } finally {
        if (!rows.done) await rows.close();
      }
    }
    if (names.length === 0) {
      names.push(nameOf('Sheet 1'));
      yield { name: sheetPath(1), data: new SheetRows([], [], limits).part(), modified };
    }
    yield { name: 'xl/workbook.xml', data: [utf8(workbookXml(names))], modified };
    yield { name: 'xl/_rels/workbook.xml.rels', data: [utf8(workbookRelsXml(names.length))], modified };
    yield { name: 'xl/styles.xml', data: [utf8(stylesXml())], modified };
    yield { name: '_rels/.rels', data: [utf8(rootRelsXml())], modified };
    yield { name: '[Content_Types].xml', data: [utf8(contentTypesXml(names.length))], modified };
  }
  yield* zipStream(entries());
}
