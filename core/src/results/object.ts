/**
 * A result's rows as one object in the region's R2 bucket (ARCHITECTURE.md D55).
 *
 * The object holds the result's chunks joined by commas: exactly the text that goes between `"rows":[`
 * and `]` of the JSON document, so the data server sends it as it is. The chunk index (rows and bytes
 * of each chunk, in order) is kept with the result row in the database; with it a reader cuts the
 * object back into the chunks the engine wrote (CSV and XLSX encoders want whole rows per chunk) or
 * reads one chunk with a range request.
 *
 * Only the few methods used here are declared, so this module does not depend on the Workers types;
 * a Workers `R2Bucket` has them all.
 */

export interface ResultBucket {
  put(key: string, value: Uint8Array | ArrayBuffer | string | null): Promise<unknown>;
  get(key: string, options?: { range?: { offset: number; length: number } }): Promise<{ body: ReadableStream<Uint8Array>; size: number } | null>;
  createMultipartUpload(key: string): Promise<ResultUpload>;
  delete(keys: string | string[]): Promise<void>;
}

export interface ResultUpload {
  uploadPart(partNumber: number, value: Uint8Array): Promise<{ partNumber: number; etag: string }>;
  complete(parts: { partNumber: number; etag: string }[]): Promise<unknown>;
  abort(): Promise<void>;
}

/** Where a result's rows are: the object's key and each chunk's `[rows, bytes]`, in order. */
export interface StoredObject {
  key: string;
  chunks: [number, number][];
}

/** Objects of results are under this prefix (the bucket's one-day lifecycle rule covers it). */
export const RESULTS_PREFIX = 'results/';
export const resultObjectKey = (executionId: string) => `${RESULTS_PREFIX}${executionId}`;
/** An export job's file (ARCHITECTURE D55). */
export const exportObjectKey = (jobId: string) => `exports/${jobId}`;

/**
 * Parts of a multipart upload: R2 wants every part but the last of one size, at least 5 MiB. A result
 * smaller than one part is stored with a single put.
 */
export const PART_BYTES = 8 * 1024 * 1024;

const COMMA = 0x2c;

/**
 * Writes one result's chunks, in order, into its object (ObjectWriter below), joined by commas, and
 * keeps the chunk index.
 */
export class ResultObjectWriter {
  private readonly out: ObjectWriter;
  private readonly index: [number, number][] = [];
  private nonEmpty = false;

  constructor(
    bucket: ResultBucket,
    readonly key: string,
    inFlight = 2,
  ) {
    this.out = new ObjectWriter(bucket, key, inFlight);
  }

  /** Adds the next chunk (comma-separated row arrays, whole rows). */
  async append(rows: number, data: Uint8Array): Promise<void> {
    this.index.push([rows, data.length]);
    if (data.length === 0) return;
    if (this.nonEmpty) await this.out.write(Uint8Array.of(COMMA));
    this.nonEmpty = true;
    await this.out.write(data);
  }

  /** Stores what is left and completes the object; returns where the rows are. */
  async finish(): Promise<StoredObject> {
    await this.out.finish();
    return { key: this.key, chunks: this.index };
  }

  abort(): Promise<void> {
    return this.out.abort();
  }
}

/**
 * Writes bytes, in order, into one object: full parts are uploaded while the next ones fill (at most
 * `inFlight` uploads at once; `write` waits beyond that, which is the writer's backpressure). Memory:
 * one part being filled and the parts in flight. Under one part, a single put.
 */
export class ObjectWriter {
  private buf = new Uint8Array(PART_BYTES);
  private fill = 0;
  private upload: Promise<ResultUpload> | null = null;
  private readonly parts: Promise<{ partNumber: number; etag: string }>[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  private failed: unknown = null;
  /** Bytes written so far. */
  size = 0;

  constructor(
    private readonly bucket: ResultBucket,
    readonly key: string,
    private readonly inFlight = 2,
  ) {}

  async write(data: Uint8Array): Promise<void> {
    if (this.failed) throw this.failed;
    this.size += data.length;
    await this.copy(data);
  }

  /** Stores what is left and completes the object. */
  async finish(): Promise<void> {
    if (this.failed) throw this.failed;
    if (!this.upload) {
      await this.bucket.put(this.key, this.buf.subarray(0, this.fill));
    } else {
      if (this.fill > 0) this.sendPart(this.buf.subarray(0, this.fill));
      const parts = await Promise.all(this.parts);
      await (await this.upload).complete(parts);
    }
    this.buf = new Uint8Array(0);
  }

  /** Gives the object up (a failed or cancelled run): an unfinished upload is aborted. */
  async abort(): Promise<void> {
    this.buf = new Uint8Array(0);
    await Promise.allSettled(this.pending);
    if (this.upload) await (await this.upload).abort().catch(() => {});
  }

  private async copy(data: Uint8Array): Promise<void> {
    let at = 0;
    while (at < data.length) {
      const n = Math.min(PART_BYTES - this.fill, data.length - at);
      this.buf.set(data.subarray(at, at + n), this.fill);
      this.fill += n;
      at += n;
      if (this.fill === PART_BYTES) {
        this.sendPart(this.buf);
        this.buf = new Uint8Array(PART_BYTES);
        this.fill = 0;
        while (this.pending.size >= this.inFlight) await Promise.race(this.pending);
        if (this.failed) throw this.failed;
      }
    }
  }

  private sendPart(body: Uint8Array): void {
    this.upload ??= this.bucket.createMultipartUpload(this.key);
    const partNumber = this.parts.length + 1;
    const part = this.upload.then((u) => u.uploadPart(partNumber, body));
    this.parts.push(part);
    const done: Promise<unknown> = part
      .then(
        () => {},
        (err) => {
          this.failed ??= err;
        },
      )
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
    part.catch(() => {});
  }
}

/** The byte offset of chunk `seq` in the object (chunks before it and the commas between them). */
function offsetOf(obj: StoredObject, seq: number): number {
  let at = 0;
  let nonEmpty = false;
  for (let i = 0; i < seq; i++) {
    const bytes = obj.chunks[i]![1];
    if (bytes === 0) continue;
    at += (nonEmpty ? 1 : 0) + bytes;
    nonEmpty = true;
  }
  return at + (nonEmpty ? 1 : 0);
}

async function readAll(body: ReadableStream<Uint8Array>, size: number): Promise<Uint8Array> {
  const out = new Uint8Array(size);
  let at = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.set(value, at);
    at += value.length;
  }
  return at === size ? out : out.subarray(0, at);
}

/** One chunk of a stored object by its number (a range read), or null when there is no such chunk. */
export async function objectChunkAt(bucket: ResultBucket, obj: StoredObject, seq: number): Promise<{ rows: number; data: Uint8Array } | null> {
  const entry = obj.chunks[seq];
  if (!entry) return null;
  const [rows, bytes] = entry;
  if (bytes === 0) return { rows, data: new Uint8Array(0) };
  const got = await bucket.get(obj.key, { range: { offset: offsetOf(obj, seq), length: bytes } });
  if (!got) throw new Error(`the result object ${obj.key} is missing`);
  return { rows, data: await readAll(got.body, bytes) };
}

/** The object's whole body as it is stored (the rows of a JSON document, comma-separated). */
export async function objectBody(bucket: ResultBucket, obj: StoredObject): Promise<ReadableStream<Uint8Array>> {
  const got = await bucket.get(obj.key);
  if (!got) throw new Error(`the result object ${obj.key} is missing`);
  return got.body;
}

/** The object's bytes as they arrive (one streaming read). */
export async function* objectBytes(bucket: ResultBucket, obj: StoredObject): AsyncGenerator<Uint8Array> {
  const reader = (await objectBody(bucket, obj)).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value.length) yield value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * The object cut back into the chunks the engine wrote, in order (one streaming read; a chunk that
 * spans two reads is copied once, one that lies within a read is a view of it). Empty chunks are
 * skipped, as readers of stored chunks skip them.
 */
export async function* objectChunks(bucket: ResultBucket, obj: StoredObject): AsyncGenerator<Uint8Array> {
  const sizes = obj.chunks.map((c) => c[1]).filter((b) => b > 0);
  if (sizes.length === 0) return;
  let i = 0;
  let skipComma = false;
  let part: Uint8Array | null = null;
  let partFill = 0;
  for await (let bytes of objectBytes(bucket, obj)) {
    while (bytes.length > 0 && i < sizes.length) {
      if (skipComma) {
        bytes = bytes.subarray(1);
        skipComma = false;
        continue;
      }
      const want = sizes[i]!;
      if (!part && bytes.length >= want) {
        yield bytes.subarray(0, want);
        bytes = bytes.subarray(want);
      } else {
        part ??= new Uint8Array(want);
        const n = Math.min(want - partFill, bytes.length);
        part.set(bytes.subarray(0, n), partFill);
        partFill += n;
        bytes = bytes.subarray(n);
        if (partFill < want) continue;
        yield part;
        part = null;
        partFill = 0;
      }
      i++;
      skipComma = i < sizes.length;
    }
  }
  if (i < sizes.length) throw new Error(`the result object ${obj.key} ended early`);
}
