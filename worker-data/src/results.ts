import type postgres from 'postgres';

export interface StoredResult {
  execution_id: string;
  organization_id: string;
  fields: unknown;
  row_count: number;
  size_in_bytes: number;
  time_zone: string;
  data_timestamp: Date;
  chunks: number;
}

/** Looks a live result up by its data key, within the token's organization. */
export async function findResult(sql: postgres.Sql, org: string, dataKey: string): Promise<StoredResult | null> {
  const rows = await sql<StoredResult[]>`
    select r.execution_id, r.organization_id, r.fields, r.row_count::float8 as row_count,
           r.size_in_bytes::float8 as size_in_bytes, r.time_zone, r.data_timestamp,
           (select count(*)::int from result_chunks c where c.execution_id = r.execution_id) as chunks
      from results r
     where r.data_key = ${dataKey} and r.organization_id = ${org} and r.expires_at > now()`;
  return rows[0] ?? null;
}

/**
 * Streams a result as one JSON document without parsing its rows: the stored chunks are already
 * comma-separated row arrays, so the body is a header, the chunks joined by commas, and a footer.
 * One chunk is in memory at a time.
 */
export function streamResult(sql: postgres.Sql, r: StoredResult, onDone: () => void): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const head = `{"fields":${JSON.stringify(r.fields)},"rows":[`;
  const tail = `],"execution_id":${JSON.stringify(r.execution_id)},"data_timestamp":${JSON.stringify(
    new Date(r.data_timestamp).toISOString(),
  )},"size_in_bytes":${r.size_in_bytes},"time_zone":${JSON.stringify(r.time_zone)}}`;
  let seq = -1;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (seq === -1) {
          controller.enqueue(enc.encode(head));
          seq = 0;
          return;
        }
        if (seq >= r.chunks) {
          controller.enqueue(enc.encode(tail));
          controller.close();
          onDone();
          return;
        }
        const [row] = await sql<{ data: Uint8Array }[]>`
          select data from result_chunks where execution_id = ${r.execution_id} and seq = ${seq}`;
        if (seq > 0) controller.enqueue(enc.encode(','));
        controller.enqueue(row ? new Uint8Array(row.data) : new Uint8Array());
        seq++;
      } catch (err) {
        controller.error(err);
        onDone();
      }
    },
    cancel() {
      onDone();
    },
  });
}
