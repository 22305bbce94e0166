import { crc32 } from './crc32.ts';
import { utf8 } from './bytes.ts';

/**
 * A zip archive written as a stream: each entry's local header goes out first, then its data as it
 * is produced (stored, or deflated through `CompressionStream('deflate-raw')`), then a data
 * descriptor with the CRC-32 and sizes computed on the way (general purpose flag bit 3), and at the
 * end the central directory. Entry names are UTF-8 (flag bit 11). Memory is one piece of data at a
 * time, whatever the archive's size.
 *
 * Plain zip only: no entry and no archive may reach 4 GiB and there may be at most 65,535 entries;
 * ZIP64 is not written. Passing a limit throws `ZipLimitError`, which ends the stream with an error
 * rather than a corrupt archive.
 */
export interface ZipEntry {
  name: string;
  data: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  /** `deflate` (default) or `store`. */
  method?: 'deflate' | 'store';
  modified?: Date;
}

export class ZipLimitError extends Error {
  constructor(what: string) {
    super(`The archive is too large for a zip file without ZIP64: ${what}.`);
    this.name = 'ZipLimitError';
  }
}

const MAX32 = 0xffffffff;
const FLAG_DESCRIPTOR = 0x0008;
const FLAG_UTF8 = 0x0800;

interface Written {
  name: Uint8Array;
  method: number;
  time: number;
  date: number;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
}

/** MS-DOS time and date fields (UTC, 2-second resolution, years 1980–2107). */
export function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.min(Math.max(d.getUTCFullYear(), 1980), 2107);
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

function localHeader(e: Written): Uint8Array {
  const b = new Uint8Array(30 + e.name.length);
  const v = new DataView(b.buffer);
  v.setUint32(0, 0x04034b50, true);
  v.setUint16(4, 20, true);
  v.setUint16(6, FLAG_DESCRIPTOR | FLAG_UTF8, true);
  v.setUint16(8, e.method, true);
  v.setUint16(10, e.time, true);
  v.setUint16(12, e.date, true);
  // CRC and sizes: 0 here, given in the data descriptor and the central directory.
  v.setUint16(26, e.name.length, true);
  b.set(e.name, 30);
  return b;
}

function dataDescriptor(e: Written): Uint8Array {
  const b = new Uint8Array(16);
  const v = new DataView(b.buffer);
  v.setUint32(0, 0x08074b50, true);
  v.setUint32(4, e.crc, true);
  v.setUint32(8, e.compressed, true);
  v.setUint32(12, e.size, true);
  return b;
}

function centralHeader(e: Written): Uint8Array {
  const b = new Uint8Array(46 + e.name.length);
  const v = new DataView(b.buffer);
  v.setUint32(0, 0x02014b50, true);
  v.setUint16(4, 20, true); // made by: zip 2.0, MS-DOS attributes
  v.setUint16(6, 20, true);
  v.setUint16(8, FLAG_DESCRIPTOR | FLAG_UTF8, true);
  v.setUint16(10, e.method, true);
  v.setUint16(12, e.time, true);
  v.setUint16(14, e.date, true);
  v.setUint32(16, e.crc, true);
  v.setUint32(20, e.compressed, true);
  v.setUint32(24, e.size, true);
  v.setUint16(28, e.name.length, true);
  v.setUint32(42, e.offset, true);
  b.set(e.name, 46);
  return b;
}

function endOfCentralDirectory(count: number, size: number, offset: number): Uint8Array {
  const b = new Uint8Array(22);
  const v = new DataView(b.buffer);
  v.setUint32(0, 0x06054b50, true);
  v.setUint16(8, count, true);
  v.setUint16(10, count, true);
  v.setUint32(12, size, true);
  v.setUint32(16, offset, true);
  return b;
}

/** Deflates a stream of bytes; `seen` is called with each input piece (for the CRC and size). */
async function* deflateRaw(src: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, seen: (b: Uint8Array) => void): AsyncGenerator<Uint8Array> {
  const cs = new CompressionStream('deflate-raw');
  const writer = cs.writable.getWriter();
  const reader = cs.readable.getReader();
  let failure: unknown = null;
  const pump = (async () => {
    // Up to two pieces in flight, so the compressor has the next piece while the previous one's
    // output is read; never more (writer.ready does not hold writers back in every runtime).
    const inflight: Promise<void>[] = [];
    try {
      for await (const piece of src) {
        if (piece.length === 0) continue;
        seen(piece);
        const w = writer.write(piece as Uint8Array<ArrayBuffer>);
        w.catch(() => {});
        inflight.push(w);
        if (inflight.length >= 2) await inflight.shift();
      }
      await Promise.all(inflight);
      await writer.close();
    } catch (err) {
      failure = err;
      await writer.abort(err).catch(() => {});
    }
  })();
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      yield value;
    }
    finished = true;
  } catch (err) {
    throw failure ?? err;
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    await pump;
  }
  if (failure) throw failure;
}

/** The zip archive of `entries`, in pieces. */
export async function* zipStream(
  entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>,
  limits: { /** Largest archive and entry, in bytes (default and maximum 4 GiB − 1; lower only in tests). */ maxBytes?: number } = {},
): AsyncGenerator<Uint8Array> {
  const max = Math.min(limits.maxBytes ?? MAX32, MAX32);
  const written: Written[] = [];
  let offset = 0;
  const advance = (n: number, what: string) => {
    offset += n;
    if (offset > max) throw new ZipLimitError(what);
  };
  for await (const entry of entries) {
    if (written.length === 0xffff) throw new ZipLimitError('more than 65,535 entries');
    const { time, date } = dosDateTime(entry.modified ?? new Date());
    const e: Written = {
      name: utf8(entry.name),
      method: entry.method === 'store' ? 0 : 8,
      time,
      date,
      crc: 0,
      compressed: 0,
      size: 0,
      offset,
    };
    const head = localHeader(e);
    advance(head.length, `"${entry.name}"`);
    yield head;
    const seen = (b: Uint8Array) => {
      e.crc = crc32(b, e.crc);
      e.size += b.length;
      if (e.size > max) throw new ZipLimitError(`"${entry.name}" is too big`);
    };
    if (e.method === 8) {
      for await (const out of deflateRaw(entry.data, seen)) {
        e.compressed += out.length;
        advance(out.length, `"${entry.name}"`);
        yield out;
      }
    } else {
      for await (const piece of entry.data) {
        if (piece.length === 0) continue;
        seen(piece);
        e.compressed += piece.length;
        advance(piece.length, `"${entry.name}"`);
        yield piece;
      }
    }
    const desc = dataDescriptor(e);
    advance(desc.length, `"${entry.name}"`);
    yield desc;
    written.push(e);
  }
  const start = offset;
  for (const e of written) {
    const h = centralHeader(e);
    advance(h.length, 'central directory');
    yield h;
  }
  yield endOfCentralDirectory(written.length, offset - start, start);
}
