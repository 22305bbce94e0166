/**
 * An export job's file is one object of the region's R2 bucket (`exports/<job id>`, ARCHITECTURE D55,
 * D61: the bucket is required; `export_file_chunks` is no longer written). The data server streams it
 * back (`GET /exports/{job}`).
 */
import { ObjectWriter, exportObjectKey, type ResultBucket } from '@cairn/core/results/object';

/** How long a finished job's file is kept (file_url works only while it is). */
export const EXPORT_FILE_TTL_MS = 24 * 3_600_000;

/** Writes the bytes into the job's object in the region's bucket; answers the file size. A failure leaves no object behind. */
export async function storeFile(jobId: string, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, bucket: ResultBucket): Promise<number> {
  const out = new ObjectWriter(bucket, exportObjectKey(jobId));
  try {
    for await (const piece of source) await out.write(piece);
    await out.finish();
  } catch (err) {
    await out.abort();
    throw err;
  }
  return out.size;
}
