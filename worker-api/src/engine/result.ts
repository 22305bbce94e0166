import { humanName, type ResultField } from '@cairn/core';
import { isDimension, Kind, type EncodedColumn, type ResultColumn } from './types.ts';
import { JsonWriter } from './connectors/json-writer.ts';
import { encodeSpan, encodeText, encodeValue } from './connectors/encode.ts';
import { ColumnStats } from './connectors/stats.ts';

/** Rows are stored and streamed in chunks of about this many bytes (D2). */
export const CHUNK_BYTES = 512 * 1024;
/** Chunks a sink may still be writing while the connector reads on (8 × 512 KB). */
export const MAX_BACKLOG = 8;

/**
 * A run of rows as the result store keeps them: UTF-8 JSON of comma-separated row arrays
 * (`[1,"a"],[2,"b"]`), so that a whole result is `[` + chunks joined by `,` + `]`.
 */
export interface ResultChunk {
  rows: number;
  data: Uint8Array;
}

/** Where a connector streams a result. The connector waits for each returned promise (backpressure). */
export interface RowSink {
  /** The result's columns, once, before any chunk. */
  columns?(columns: ResultColumn[]): void | Promise<void>;
  chunk(chunk: ResultChunk): void | Promise<void>;
}

/** What a finished run reports: columns, field statistics and sizes. */
export interface ResultSummary {
  columns: ResultColumn[];
  fields: ResultField[];
  rowCount: number;
  /** Bytes of row JSON (the chunks' total). */
  sizeInBytes: number;
}

const NUMERIC = new Set<Kind>([Kind.Bool, Kind.Int, Kind.BigInt, Kind.Float, Kind.Decimal]);

/**
 * Encodes rows straight into JSON chunk bytes while keeping each field's statistics. Rows come either
 * as the database's text bytes per cell (`textRow`, Postgres) or as JS values (`valueRow`, mysql2).
 * Full chunks wait in `pending` until `flow` hands them to the sink, so memory is the chunks of one
 * batch plus the sink's backlog.
 */
export class ResultWriter {
  rowCount = 0;
  sizeInBytes = 0;
  private readonly w: JsonWriter;
  private readonly kinds: Kind[];
  private readonly elementKinds: Kind[];
  private readonly stats: ColumnStats[];
  private chunkRows = 0;
  private pending: ResultChunk[] = [];
  /** Chunks handed to the sink and not yet written, oldest first. */
  private inFlight: Promise<unknown>[] = [];

  constructor(
    readonly columns: EncodedColumn[],
    private readonly chunkBytes = CHUNK_BYTES,
  ) {
    this.w = new JsonWriter(chunkBytes + 64 * 1024);
    this.kinds = columns.map((c) => c.kind);
    this.elementKinds = columns.map((c) => c.elementKind ?? Kind.Text);
    this.stats = columns.map((c) => new ColumnStats(NUMERIC.has(c.kind), c.kind === Kind.DateTime));
  }

  /** One row whose cells are the database's text form (null for SQL NULL). */
  textRow(cells: ArrayLike<Uint8Array | null>): void {
    const { w, kinds, stats, elementKinds } = this;
    const n = kinds.length;
    if (this.chunkRows > 0) w.byte(0x2c);
    w.byte(0x5b);
    for (let i = 0; i < n; i++) {
      if (i > 0) w.byte(0x2c);
      const cell = cells[i];
      if (cell == null) {
        w.nul();
        continue;
      }
      const start = w.len;
      const key = encodeText(kinds[i]!, cell, w, elementKinds[i]);
      stats[i]!.see(w.buf, start, w.len, key);
    }
    this.endRow();
  }

  /**
   * One row straight from a Postgres DataRow message: `at` is the offset of its field count in
   * `buf`, followed by (int32 length, bytes) per cell, length -1 for NULL. No per-cell objects.
   */
  wireRow(buf: Uint8Array, at: number): void {
    const { w, kinds, stats, elementKinds } = this;
    const n = kinds.length;
    let p = at + 2;
    if (this.chunkRows > 0) w.byte(0x2c);
    w.byte(0x5b);
    for (let i = 0; i < n; i++) {
      if (i > 0) w.byte(0x2c);
      const len = (buf[p]! << 24) | (buf[p + 1]! << 16) | (buf[p + 2]! << 8) | buf[p + 3]!;
      p += 4;
      if (len < 0) {
        w.nul();
        continue;
      }
      const start = w.len;
      const key = encodeSpan(kinds[i]!, buf, p, p + len, w, elementKinds[i]);
      p += len;
      stats[i]!.see(w.buf, start, w.len, key);
    }
    this.endRow();
  }

  /** One row of JS values as a driver hands them out. */
  valueRow(cells: ArrayLike<unknown>): void {
    const w = this.w;
    const n = this.kinds.length;
    if (this.chunkRows > 0) w.byte(0x2c);
    w.byte(0x5b);
    for (let i = 0; i < n; i++) {
      if (i > 0) w.byte(0x2c);
      const start = w.len;
      const key = encodeValue(this.kinds[i]!, cells[i], w);
      this.stats[i]!.see(w.buf, start, w.len, key);
    }
    this.endRow();
  }

  private endRow(): void {
    this.w.byte(0x5d);
    this.chunkRows++;
    this.rowCount++;
    if (this.w.len >= this.chunkBytes) this.cut();
  }

  private cut(): void {
    if (this.chunkRows === 0) return;
    const data = this.w.take();
    this.pending.push({ rows: this.chunkRows, data });
    this.sizeInBytes += data.length;
    this.chunkRows = 0;
  }

  /** Bytes of row JSON written so far (handed out or not). */
  get bytesWritten(): number {
    return this.sizeInBytes + this.w.len;
  }

  /** True when full chunks wait to be handed to the sink. */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /**
   * Hands the full chunks (with `final`, the last partial one too) to the sink, one after the other,
   * and resolves once no more than `maxBacklog` of them are still being written: the database read
   * goes on while the sink writes, and memory stays bounded. Rejects when the sink fails.
   */
  async flow(sink: RowSink, maxBacklog = 0, final = false): Promise<void> {
    if (final) this.cut();
    for (const chunk of this.pending) {
      const previous = this.inFlight[this.inFlight.length - 1] ?? Promise.resolve();
      const written = previous.then(() => sink.chunk(chunk));
      written.catch(() => {}); // awaited below or by a later call
      this.inFlight.push(written);
    }
    this.pending = [];
    while (this.inFlight.length > maxBacklog) await this.inFlight.shift();
  }

  /** Hands every chunk to the sink and waits until all are written. */
  drain(sink: RowSink, final = false): Promise<void> {
    return this.flow(sink, 0, final);
  }

  fields(): ResultField[] {
    return this.columns.map((c, idx) => ({
      idx,
      name: c.name,
      data_type: c.data_type,
      unique_count: this.stats[idx]!.uniqueCount,
      human_name: humanName(c.name),
      min_value: this.stats[idx]!.minValue(),
      max_value: this.stats[idx]!.maxValue(),
      group_by: isDimension(c.data_type),
    }));
  }

  summary(): ResultSummary {
    return {
      columns: this.columns.map(({ name, data_type, db_type }) => ({ name, data_type, db_type })),
      fields: this.fields(),
      rowCount: this.rowCount,
      sizeInBytes: this.sizeInBytes,
    };
  }
}
