/**
 * One statement over the Postgres wire protocol, read without a driver in between (inside workerd).
 *
 * postgres.js opens the connection (startup, authentication, SSL through our socket), begins the
 * read-only transaction and makes the session settings; then this module borrows the connection's
 * socket (`PgSocket.tap`) for the statement itself: Parse/Bind/Describe/Execute/Sync in one write,
 * with every value a bound parameter (text format, types inferred by the server, except booleans and
 * bytes which are typed as postgres.js types them), and the DataRow messages are handed to the caller
 * as spans of the received bytes — no row or cell objects. After ReadyForQuery the socket goes back
 * to postgres.js, which commits or rolls back as before.
 *
 * Why: postgres.js builds a Buffer view per cell and per message (Node's Buffer inside workerd is a
 * polyfill where that is expensive), and its cursor costs a round trip per batch; reading the
 * messages here is several times faster for large results. Backpressure is the socket's own: the next
 * read waits while the caller's `batch` (the result sink) is busy.
 */

import { ByteWriter } from '../export/bytes.ts';

export interface WireColumn {
  name: string;
  type: number;
}

/** A database error as postgres.js reports it, so that the connector maps both alike. */
export interface WireError extends Error {
  code?: string;
  position?: string;
  hint?: string;
  detail?: string;
  severity?: string;
}

export interface WireHandlers {
  /** The statement's columns (empty for a statement without rows), before any row. */
  columns(columns: WireColumn[]): void;
  /** One DataRow: `at` is the offset of its field count in `buf`; `buf` is valid only during the call. */
  row(buf: Uint8Array, at: number): void;
  /** After the rows of each received chunk; the next read waits for the returned promise. */
  batch(): void | Promise<void>;
}

/** What the reader needs from the socket (PgSocket in socket.ts). */
export interface Tappable {
  tap(tap: WireTap): void;
  /** Gives the socket back to postgres.js; `rest` (bytes after ReadyForQuery) goes to it first. */
  untap(rest: Uint8Array | null): void;
  send(bytes: Uint8Array): Promise<void>;
}

export interface WireTap {
  /** Bytes read from the socket; the socket reads on once the returned promise settles. */
  data(chunk: Uint8Array): void | Promise<void>;
  /** The connection closed (or failed) while tapped. */
  closed(err: unknown): void;
}

/** Statements read through this module in this isolate (lets tests see which path a run took). */
export const wireStats = { statements: 0 };

const enc = new TextEncoder();
const dec = new TextDecoder();

/** postgres.js's parameter types for values whose text the server would otherwise read as unknown. */
function paramType(v: unknown): number {
  if (v === true || v === false) return 16; // bool
  if (v instanceof Uint8Array) return 17; // bytea
  return 0;
}

function paramText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

/** A message builder (big-endian integers, NUL-terminated strings) on the export writers' growable buffer. */
class Out extends ByteWriter {
  private start = 0;

  constructor(capacity = 1024) {
    super(capacity);
  }

  begin(type: string): this {
    this.ensure(5);
    this.start = this.len;
    this.buf[this.len] = type.charCodeAt(0);
    this.len += 5;
    return this;
  }

  end(): this {
    this.put32(this.len - this.start - 1, this.start + 1);
    return this;
  }

  private put32(v: number, at: number): void {
    this.buf[at] = v >>> 24;
    this.buf[at + 1] = (v >>> 16) & 0xff;
    this.buf[at + 2] = (v >>> 8) & 0xff;
    this.buf[at + 3] = v & 0xff;
  }

  i32(v: number): this {
    this.ensure(4);
    this.put32(v, this.len);
    this.len += 4;
    return this;
  }

  i16(v: number): this {
    this.ensure(2);
    this.buf[this.len] = (v >>> 8) & 0xff;
    this.buf[this.len + 1] = v & 0xff;
    this.len += 2;
    return this;
  }

  raw(bytes: Uint8Array): this {
    this.bytes(bytes);
    return this;
  }

  cstr(s: string): this {
    return this.raw(enc.encode(s)).raw(ZERO);
  }
}

const ZERO = new Uint8Array(1);

/**
 * Parse, Bind, Describe (portal), Execute (all rows) and Sync of an unnamed statement. Results come
 * in text format, or all in binary format with `binary` (a bytea column then arrives as its raw bytes).
 */
export function statementMessages(text: string, values: unknown[], binary = false): Uint8Array {
  if (text.includes('\0')) throw Object.assign(new Error('The query text contains a NUL character'), { code: '22021' });
  if (values.length > 65535) throw new Error('Too many parameters (the protocol allows 65535)');
  // Room for the text and any bytes up front, so a large value is copied in once.
  const o = new Out(256 + text.length * 3 + values.reduce<number>((n, v) => n + (v instanceof Uint8Array ? v.length + 8 : 16), 0));
  o.begin('P').cstr('').cstr(text).i16(values.length);
  for (const v of values) o.i32(paramType(v));
  o.end();
  // Bytes go in binary format (as they are), everything else as text.
  const anyBytes = values.some((v) => v instanceof Uint8Array);
  o.begin('B').cstr('').cstr('');
  if (anyBytes) {
    o.i16(values.length);
    for (const v of values) o.i16(v instanceof Uint8Array ? 1 : 0);
  } else o.i16(0);
  o.i16(values.length);
  for (const v of values) {
    if (v instanceof Uint8Array) {
      o.i32(v.length).raw(v);
      continue;
    }
    const t = paramText(v);
    if (t === null) o.i32(-1);
    else {
      const bytes = enc.encode(t);
      o.i32(bytes.length).raw(bytes);
    }
  }
  (binary ? o.i16(1).i16(1) : o.i16(0)).end();
  o.begin('D').raw(enc.encode('P')).cstr('').end();
  o.begin('E').cstr('').i32(0).end();
  o.begin('S').end();
  return o.buf.subarray(0, o.len);
}

/** CopyFail: ends a COPY FROM STDIN with an error the user sees. */
const COPY_FAIL = ((o: Out) => o.buf.slice(0, o.len))(new Out().begin('f').cstr('COPY FROM STDIN is not supported in a query').end());

const i32 = (b: Uint8Array, at: number) => (b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!;
const u32 = (b: Uint8Array, at: number) => i32(b, at) >>> 0;
const i16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;

function cstrEnd(b: Uint8Array, at: number, end: number): number {
  let i = at;
  while (i < end && b[i] !== 0) i++;
  return i;
}

/** RowDescription: name and type OID per column. */
function rowDescription(b: Uint8Array, at: number, end: number): WireColumn[] {
  const n = i16(b, at);
  const cols: WireColumn[] = [];
  let p = at + 2;
  for (let i = 0; i < n; i++) {
    const z = cstrEnd(b, p, end);
    const name = dec.decode(b.subarray(p, z));
    p = z + 1;
    const type = u32(b, p + 6); // after table OID (4) and column number (2)
    p += 18;
    cols.push({ name, type });
  }
  return cols;
}

/** ErrorResponse fields → an error shaped like postgres.js's PostgresError. */
function errorResponse(b: Uint8Array, at: number, end: number): WireError {
  const f: Record<string, string> = {};
  let p = at;
  while (p < end && b[p] !== 0) {
    const key = String.fromCharCode(b[p]!);
    const z = cstrEnd(b, p + 1, end);
    f[key] = dec.decode(b.subarray(p + 1, z));
    p = z + 1;
  }
  const err = new Error(f.M ?? 'The query failed') as WireError;
  err.name = 'PostgresError';
  if (f.C) err.code = f.C;
  if (f.P) err.position = f.P;
  if (f.H) err.hint = f.H;
  if (f.D) err.detail = f.D;
  if (f.S) err.severity = f.S;
  return err;
}

/**
 * Runs one statement on a tapped socket. Resolves after ReadyForQuery; rejects with the database's
 * error (the socket is handed back first, so the transaction can roll back), with the handlers'
 * error (the socket stays tapped and discards everything: the caller must close the connection), or
 * with a connection error when the socket closes.
 */
export function runWireStatement(socket: Tappable, text: string, values: unknown[], h: WireHandlers, opts: { binary?: boolean } = {}): Promise<void> {
  const messages = statementMessages(text, values, opts.binary);
  wireStats.statements++;
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let failure: WireError | null = null;
    let discard = false;
    let described = false;
    // A message split across reads: its parts until `need` bytes are there.
    let parts: Uint8Array[] = [];
    let have = 0;
    let need = 0;

    const finish = (err: unknown) => {
      if (settled) return;
      settled = true;
      if (err === undefined) resolve();
      else reject(err);
    };

    const onChunk = (chunk: Uint8Array): void | Promise<void> => {
      if (discard || settled) return;
      let buf = chunk;
      if (parts.length) {
        parts.push(chunk);
        have += chunk.length;
        if (have < need) return;
        buf = new Uint8Array(have);
        let o = 0;
        for (const p of parts) {
          buf.set(p, o);
          o += p.length;
        }
        parts = [];
        have = 0;
      }
      const end = buf.length;
      let pos = 0;
      try {
        while (end - pos >= 5) {
          const type = buf[pos]!;
          const next = pos + 1 + i32(buf, pos + 1);
          if (next > end) break;
          const body = pos + 5;
          if (type === 0x44) {
            // DataRow
            if (failure === null) h.row(buf, body);
          } else if (type === 0x54) {
            described = true;
            h.columns(rowDescription(buf, body, next));
          } else if (type === 0x6e) {
            // NoData: a statement without rows
            described = true;
            h.columns([]);
          } else if (type === 0x45) {
            failure ??= errorResponse(buf, body, next);
          } else if (type === 0x47) {
            // CopyInResponse (COPY … FROM STDIN): the server waits for data that never comes.
            socket.send(COPY_FAIL).catch(() => {});
          } else if (type === 0x5a) {
            // ReadyForQuery: the statement is over; the rest of the bytes belong to postgres.js.
            socket.untap(next < end ? buf.slice(next) : null);
            finish(failure ?? undefined);
            return;
          }
          // ParseComplete, BindComplete, CommandComplete, EmptyQueryResponse, notices, parameter
          // status and notifications need nothing here.
          pos = next;
        }
      } catch (err) {
        discard = true;
        finish(err);
        return;
      }
      if (pos < end) {
        const rest = buf.slice(pos);
        parts = [rest];
        have = rest.length;
        need = end - pos >= 5 ? 1 + i32(rest, 1) : 5;
      }
      if (failure !== null || !described) return;
      try {
        const r = h.batch();
        if (r) {
          return r.then(undefined, (err: unknown) => {
            discard = true;
            finish(err);
          });
        }
      } catch (err) {
        discard = true;
        finish(err);
      }
    };

    socket.tap({
      data: onChunk,
      closed: (err) =>
        finish(
          Object.assign(new Error(`the connection closed during the query${err ? `: ${(err as Error).message ?? err}` : ''}`), { code: 'CONNECTION_CLOSED' }),
        ),
    });
    socket.send(messages).catch((err: unknown) => finish(err));
  });
}
