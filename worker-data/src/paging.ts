import type postgres from 'postgres';
import { ApiError } from '@cairn/core';
import { RowCursor, END_OF_ROW } from '@cairn/core/export/index';
import type { DataFormat } from '@cairn/core/export/options';
import { objectChunkAt, type ResultBucket, type StoredObject } from '@cairn/core/results/object';

/** The most rows one page of `GET /data/{dataKey}` may ask for. */
export const MAX_PAGE_ROWS = 100_000;

export interface Page {
  offset: number;
  limit: number;
}

function intParam(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ApiError('invalid_query_parameter', `${name} must be a whole number from ${min} to ${max.toLocaleString('en-US')}.`, {
      source: { parameter: name },
    });
  }
  return Number(raw);
}

/**
 * `offset` and `limit` of a data call, or null when neither is given (the whole result). Paging is
 * for the JSON format only: a download is always the whole result.
 */
export function parsePage(query: (name: string) => string | undefined, format: DataFormat | undefined): Page | null {
  const rawOffset = query('offset');
  const rawLimit = query('limit');
  if (rawOffset === undefined && rawLimit === undefined) return null;
  if (format && format !== 'json') {
    throw new ApiError('invalid_query_parameter', `offset and limit page JSON results only; a ${format} download is the whole result.`, {
      source: { parameter: rawOffset !== undefined ? 'offset' : 'limit' },
    });
  }
  return {
    offset: rawOffset === undefined ? 0 : intParam('offset', rawOffset, 0, Number.MAX_SAFE_INTEGER),
    limit: rawLimit === undefined ? MAX_PAGE_ROWS : intParam('limit', rawLimit, 0, MAX_PAGE_ROWS),
  };
}

/**
 * The rows `offset .. offset+limit` of a stored result as comma-separated row arrays, one piece per
 * chunk read. Only the chunks covering the range are read (each chunk's `rows` column says where it
 * starts); the first and last are cut at row boundaries.
 */
export async function* pageChunks(
  sql: postgres.Sql,
  bucket: ResultBucket,
  r: { execution_id: string; stored_object: StoredObject | null },
  page: Page,
): AsyncGenerator<Uint8Array> {
  if (page.limit === 0) return;
  const end = page.offset + page.limit;
  if (r.stored_object) {
    yield* objectPage(bucket, r.stored_object, page);
    return;
  }
  const executionId = r.execution_id;
  const chunks = await sql<{ seq: number; start: number; data: Uint8Array }[]>`
    with c as (
      select seq, rows, (sum(rows) over (order by seq) - rows)::float8 as start
        from result_chunks where execution_id = ${executionId})
    select c.seq, c.start, rc.data
      from c join result_chunks rc on rc.execution_id = ${executionId} and rc.seq = c.seq
     where c.rows > 0 and c.start < ${end} and c.start + c.rows > ${page.offset}
     order by c.seq`;
  for (const chunk of chunks) {
    const data = new Uint8Array(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength);
    const skip = Math.max(0, page.offset - chunk.start);
    const take = end - Math.max(page.offset, chunk.start);
    yield cutRows(data, skip, take);
  }
}

/** The same from a result object (D55): its chunk index says where each chunk starts; one range read per chunk. */
async function* objectPage(bucket: ResultBucket, obj: StoredObject, page: Page): AsyncGenerator<Uint8Array> {
  const end = page.offset + page.limit;
  let start = 0;
  for (let seq = 0; seq < obj.chunks.length && start < end; seq++) {
    const rows = obj.chunks[seq]![0];
    if (rows > 0 && start + rows > page.offset) {
      const chunk = await objectChunkAt(bucket, obj, seq);
      const skip = Math.max(0, page.offset - start);
      yield cutRows(chunk!.data, skip, end - Math.max(page.offset, start));
    }
    start += rows;
  }
}

/** The bytes of rows `skip .. skip+take` of a chunk (fewer when it ends first). */
function cutRows(data: Uint8Array, skip: number, take: number): Uint8Array {
  const cursor = new RowCursor(data);
  let row = 0;
  let from = -1;
  let to = -1;
  while (row < skip + take && cursor.nextRow()) {
    if (row === skip) from = cursor.pos - 1;
    while (cursor.nextCell() !== END_OF_ROW);
    if (row >= skip) to = cursor.pos;
    row++;
  }
  return from < 0 ? new Uint8Array(0) : data.subarray(from, to);
}
