import type postgres from 'postgres';
import { objectChunkAt, type ResultBucket, type StoredObject } from '@cairn/core/results/object';

export interface StoredChunk {
  rows: number;
  data: Uint8Array;
}

/**
 * Reads a stored result's chunks by number, wherever its rows are (ARCHITECTURE D55): in the region's
 * bucket when the result row names an object (every query result), else in result_chunks (schema
 * documents, which stay in the database: D61). The caller has already scoped the
 * execution to its organization. The result row is looked up once per reader.
 */
export function chunkReader(sql: postgres.Sql, bucket: ResultBucket, executionId: string): (seq: number) => Promise<StoredChunk | null> {
  let object: Promise<StoredObject | null> | null = null;
  const objectOf = () =>
    (object ??= sql<{ stored_object: StoredObject | null }[]>`
    select stored_object from results where execution_id = ${executionId}`.then(([r]) => r?.stored_object ?? null));
  return async (seq) => {
    const obj = await objectOf();
    if (obj) return objectChunkAt(bucket, obj, seq);
    const [row] = await sql<{ rows: number; data: Uint8Array }[]>`
      select rows, data from result_chunks where execution_id = ${executionId} and seq = ${seq}`;
    return row ? { rows: row.rows, data: new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength) } : null;
  };
}

/** A stored result's chunks in order, one read per chunk. */
export async function* storedChunks(sql: postgres.Sql, bucket: ResultBucket, executionId: string): AsyncGenerator<StoredChunk> {
  const at = chunkReader(sql, bucket, executionId);
  for (let seq = 0; ; seq++) {
    const chunk = await at(seq);
    if (!chunk) return;
    yield chunk;
  }
}
