import type postgres from 'postgres';
import { parseDataKey, wrongRegion, type ResultField } from '@cairn/core';
import type { StoredObject } from '@cairn/core/results/object';
import type { Env } from './env.ts';

export interface StoredResult {
  execution_id: string;
  organization_id: string;
  data_key: string;
  fields: ResultField[];
  row_count: number;
  size_in_bytes: number;
  time_zone: string;
  data_timestamp: Date;
  /** The object of the region's bucket holding the rows (D55); null: they are in result_chunks. */
  stored_object: StoredObject | null;
}

/**
 * A data key names its region first (`eu/…`): this server opens only its own region's keys, whatever
 * the token says (a token is checked before this, so only its holder learns where to go).
 */
function assertKeyRegion(env: Env, dataKey: string): void {
  const region = parseDataKey(dataKey)?.region;
  if (region !== undefined && region !== env.REGION) throw wrongRegion(env, region, env.REGION, 'data');
}

/** 403 wrong_region when the token's organization belongs to the other region. */
export function assertOrgRegion(env: Env, region: string | undefined): void {
  if (region !== undefined && region !== env.REGION) throw wrongRegion(env, region, env.REGION, 'data');
}

/**
 * Looks a live result up by its data key, within the token's organization. The key's region and the
 * organization's region must both be this server's (403 wrong_region otherwise).
 */
export async function findResult(sql: postgres.Sql, org: string, dataKey: string, env: Env): Promise<StoredResult | null> {
  assertKeyRegion(env, dataKey);
  const rows = await sql<(StoredResult & { region: string })[]>`
    select r.execution_id, r.organization_id, r.data_key, r.fields, r.row_count::float8 as row_count,
           r.size_in_bytes::float8 as size_in_bytes, r.time_zone, r.data_timestamp, r.stored_object, o.region
      from results r join organizations o on o.id = r.organization_id
     where r.data_key = ${dataKey} and r.organization_id = ${org} and r.expires_at > now()`;
  const r = rows[0];
  if (!r) return null;
  assertOrgRegion(env, r.region);
  // Tolerate fields stored as a JSON string inside the json column (double-encoded by a writer).
  if (typeof r.fields === 'string') r.fields = JSON.parse(r.fields) as ResultField[];
  return r;
}

const enc = new TextEncoder();

/** The rows of a JSON document as stored text (comma-joined row arrays), in pieces of any size. */
export class RowsText {
  /**
   * `bytes`: the text as it arrives; `open`: the same text as the object's own body stream, which a
   * JSON download pipes without running JavaScript per chunk (formats.ts, ARCHITECTURE D68).
   */
  constructor(
    readonly bytes: AsyncIterable<Uint8Array>,
    readonly open?: () => Promise<ReadableStream<Uint8Array>>,
  ) {}
}

/** What a result's JSON document holds before its rows (`extra` members first, already JSON-encoded). */
export function jsonHead(r: StoredResult, extra = ''): Uint8Array {
  return enc.encode(`{${extra}"fields":${JSON.stringify(r.fields)},"rows":[`);
}

/** What a result's JSON document holds after its rows. */
export function jsonTail(r: StoredResult): Uint8Array {
  return enc.encode(
    `],"execution_id":${JSON.stringify(r.execution_id)},"data_timestamp":${JSON.stringify(
      new Date(r.data_timestamp).toISOString(),
    )},"size_in_bytes":${r.size_in_bytes},"time_zone":${JSON.stringify(r.time_zone)}}`,
  );
}

/**
 * A result as one JSON document without parsing its rows: the stored chunks are already
 * comma-separated row arrays, so the body is a head, the chunks joined by commas, and a tail.
 * `extra` members (already JSON-encoded) go first, before `fields`.
 */
export async function* resultJson(r: StoredResult, chunks: AsyncIterable<Uint8Array> | RowsText, extra = ''): AsyncGenerator<Uint8Array> {
  yield jsonHead(r, extra);
  if (chunks instanceof RowsText) {
    // Already the comma-joined rows (a result object, D55): sent as they arrive.
    yield* chunks.bytes;
  } else {
    yield* joined(chunks);
  }
  yield jsonTail(r);
}

/** Stored chunks joined by commas (empty chunks skipped). */
async function* joined(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let first = true;
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    if (!first) yield enc.encode(',');
    first = false;
    yield chunk;
  }
}
