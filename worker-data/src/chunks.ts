import type postgres from 'postgres';
import { runWireStatement } from '@cairn/core/pg/wire';
import type { PgSocket } from '@cairn/core/pg/socket';

/** The request's connection, as the chunk reader needs it. */
export interface ChunkConnection {
  sql: postgres.Sql;
  /** The connection's open socket when it is Cairn's own (inside workerd, connecting first if need be); else null. */
  socket(): Promise<PgSocket | null>;
  /** Tells the connection about a statement in flight: it is not closed before that ends. */
  track(statement: Promise<unknown>): void;
}

/**
 * Chunks per statement (~2 MB). A statement is always read to its end at once, never paused half-way:
 * closing a connection while the server is still sending makes the local Hyperdrive proxy (in
 * wrangler's Node process) fail on its next write, and a download the client gave up on may only
 * be cleaned up when its request is torn down.
 */
const CHUNKS_PER_STATEMENT = 4;

const SELECT_CHUNKS = 'select seq, data from result_chunks where execution_id = $1 and seq > $2 order by seq limit $3';

const i32 = (b: Uint8Array, at: number) => (b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!;

/**
 * A result's stored chunks in order, as their raw bytes, with memory bounded whatever the result's
 * size. Inside workerd they are read straight off the connection's socket in binary format, so each
 * chunk's bytes are copied once out of the received data: no text decoding and encoding, no hex, no
 * Buffer per message (ARCHITECTURE.md D27). The next few chunks are asked for before the current ones
 * are handed on, so the database read overlaps the client's download (two batches in memory at
 * most). Elsewhere (Node), through postgres.js one chunk at a time.
 */
export async function* storedChunks(conn: ChunkConnection, executionId: string): AsyncGenerator<Uint8Array> {
  const own = await conn.socket();
  if (!own) {
    yield* chunksThroughDriver(conn.sql, executionId);
    return;
  }
  type Batch = { seq: number; data: Uint8Array }[];
  const batchAfter = async (seq: number): Promise<Batch> => {
    const rows: Batch = [];
    const statement = runWireStatement(
      own,
      SELECT_CHUNKS,
      [executionId, seq, CHUNKS_PER_STATEMENT],
      {
        columns: () => {},
        // DataRow: field count (int16); seq: length (int32) and an int4; data: length (int32) and bytes.
        row: (buf, at) => {
          const len = i32(buf, at + 10);
          rows.push({ seq: i32(buf, at + 6), data: buf.slice(at + 14, at + 14 + Math.max(0, len)) });
        },
        batch: () => {},
      },
      { binary: true },
    );
    conn.track(statement);
    await statement;
    return rows;
  };
  let next: Promise<Batch> | null = batchAfter(-1);
  try {
    while (next) {
      const rows: Batch = await next;
      next = rows.length === CHUNKS_PER_STATEMENT ? batchAfter(rows[rows.length - 1]!.seq) : null;
      for (const row of rows) yield row.data;
    }
  } finally {
    // A reader that stops early lets the statement in flight end, so the connection stays in step.
    await next?.catch(() => {});
  }
}

/** One chunk per query through postgres.js (bytea arrives as hex and is decoded by the driver). */
async function* chunksThroughDriver(sql: postgres.Sql, executionId: string): AsyncGenerator<Uint8Array> {
  let seq = -1;
  for (;;) {
    const [row] = await sql<{ seq: number; data: Uint8Array }[]>`
      select seq, data from result_chunks where execution_id = ${executionId} and seq > ${seq} order by seq limit 1`;
    if (!row) return;
    seq = row.seq;
    yield new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength);
  }
}
