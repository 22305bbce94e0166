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
