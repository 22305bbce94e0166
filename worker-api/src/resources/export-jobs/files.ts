/**
 * An export job's file lives in `export_file_chunks` (about 1 MB per row, in order) of the region's
 * database, like results (ARCHITECTURE D2); the data server streams it back (`GET /exports/{job}`).
 */
import type postgres from 'postgres';

export const FILE_CHUNK_BYTES = 1024 * 1024;
/** How long a finished job's file is kept (file_url works only while it is). */
export const EXPORT_FILE_TTL_MS = 24 * 3_600_000;

/** Writes the bytes as chunks; answers the file size. A failure leaves no chunks behind. */
export async function storeFile(sql: postgres.Sql, jobId: string, organizationId: string, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<number> {
  let seq = 0;
  let size = 0;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (!pendingBytes) return;
    const data = new Uint8Array(pendingBytes);
    let at = 0;
    for (const p of pending) {
      data.set(p, at);
      at += p.length;
    }
    pending = [];
    pendingBytes = 0;
    await sql`insert into export_file_chunks (job_id, organization_id, seq, data) values (${jobId}, ${organizationId}, ${seq++}, ${data})`;
  };
  try {
    for await (const piece of source) {
      pending.push(piece);
      pendingBytes += piece.length;
      size += piece.length;
      if (pendingBytes >= FILE_CHUNK_BYTES) await flush();
    }
    await flush();
  } catch (err) {
    await sql`delete from export_file_chunks where job_id = ${jobId}`.catch(() => {});
    throw err;
  }
  return size;
}

/** The whole file (for e-mail attachments, which are built in memory anyway). */
export async function readFile(sql: postgres.Sql, jobId: string): Promise<Uint8Array> {
  const rows = await sql<{ data: Uint8Array }[]>`select data from export_file_chunks where job_id = ${jobId} order by seq`;
  const size = rows.reduce((n, r) => n + r.data.byteLength, 0);
  const out = new Uint8Array(size);
  let at = 0;
  for (const r of rows) {
    out.set(new Uint8Array(r.data.buffer, r.data.byteOffset, r.data.byteLength), at);
    at += r.data.byteLength;
  }
  return out;
}
