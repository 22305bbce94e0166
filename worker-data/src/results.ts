import type postgres from 'postgres';
import type { ResultField } from '@cairn/core';

export interface StoredResult {
  execution_id: string;
  organization_id: string;
  data_key: string;
  fields: ResultField[];
  row_count: number;
  size_in_bytes: number;
  time_zone: string;
  data_timestamp: Date;
}

/** Looks a live result up by its data key, within the token's organization. */
export async function findResult(sql: postgres.Sql, org: string, dataKey: string): Promise<StoredResult | null> {
  const rows = await sql<StoredResult[]>`
    select r.execution_id, r.organization_id, r.data_key, r.fields, r.row_count::float8 as row_count,
           r.size_in_bytes::float8 as size_in_bytes, r.time_zone, r.data_timestamp
      from results r
     where r.data_key = ${dataKey} and r.organization_id = ${org} and r.expires_at > now()`;
  const r = rows[0];
  if (!r) return null;
  // Tolerate fields stored as a JSON string inside the json column (double-encoded by a writer).
  if (typeof r.fields === 'string') r.fields = JSON.parse(r.fields) as ResultField[];
  return r;
}

/** Chunks fetched per query: fewer round trips, still a bounded amount in memory (~1 MB a batch, two batches at most). */
const CHUNKS_PER_QUERY = 2;
const encoder = new TextEncoder();

/**
 * The stored chunks of a result in order, fetched a couple at a time as the reader asks for them, so
 * memory stays bounded whatever the result's size. A result's chunks end at row boundaries, so each
 * is valid UTF-8 JSON on its own and comes over the wire as text (`convert_from`): half the bytes of
 * bytea's hex form and about twice as fast to read.
 */
export async function* chunksOf(sql: postgres.Sql, executionId: string): AsyncGenerator<Uint8Array> {
  const batchAfter = (seq: number) => sql<{ seq: number; text: string }[]>`
      select seq, convert_from(data, 'UTF8') as text from result_chunks
       where execution_id = ${executionId} and seq > ${seq} order by seq limit ${CHUNKS_PER_QUERY}`.execute();
  // The next batch is asked for before this one is handed on, so the database read overlaps the
  // client's download (at most two batches in memory).
  let next: ReturnType<typeof batchAfter> | null = batchAfter(-1);
  while (next) {
    const rows: { seq: number; text: string }[] = await next;
    next = rows.length === CHUNKS_PER_QUERY ? batchAfter(rows[rows.length - 1]!.seq) : null;
    for (const row of rows) yield encoder.encode(row.text);
  }
}

/**
 * Stored chunks as raw bytes, one query per chunk: for documents cut at arbitrary byte offsets (the
 * schema document), where a chunk may end inside a UTF-8 character.
 */
export async function* byteChunksOf(sql: postgres.Sql, executionId: string): AsyncGenerator<Uint8Array> {
  let seq = -1;
  for (;;) {
    const [row] = await sql<{ seq: number; data: Uint8Array }[]>`
      select seq, data from result_chunks where execution_id = ${executionId} and seq > ${seq} order by seq limit 1`;
    if (!row) return;
    seq = row.seq;
    yield new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength);
  }
}

const enc = new TextEncoder();

/**
 * A result as one JSON document without parsing its rows: the stored chunks are already
 * comma-separated row arrays, so the body is a head, the chunks joined by commas, and a tail.
 * `extra` members (already JSON-encoded) go first, before `fields`.
 */
export async function* resultJson(r: StoredResult, chunks: AsyncIterable<Uint8Array>, extra = ''): AsyncGenerator<Uint8Array> {
  yield enc.encode(`{${extra}"fields":${JSON.stringify(r.fields)},"rows":[`);
  let first = true;
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    if (!first) yield enc.encode(',');
    first = false;
    yield chunk;
  }
  yield enc.encode(`],"execution_id":${JSON.stringify(r.execution_id)},"data_timestamp":${JSON.stringify(
    new Date(r.data_timestamp).toISOString(),
  )},"size_in_bytes":${r.size_in_bytes},"time_zone":${JSON.stringify(r.time_zone)}}`);
}
