import { describe, expect, it } from 'vitest';
import zlib from 'node:zlib';
import { csvStream, toReadableStream, xlsxStream, zipStream, type ExportField } from '../src/export/index.ts';
import { enc } from './export-helpers.ts';

const FIELDS: ExportField[] = [
  { name: 'id', data_type: 'BigInt' },
  { name: 'at', data_type: 'DateTime' },
  { name: 'country', data_type: 'String' },
  { name: 'amount', data_type: 'Float' },
];

/** `chunks` chunks of `rows` rows each, made one at a time as they are asked for (like a database cursor). */
async function* lazyChunks(chunks: number, rows: number, seen: { chunks: number }) {
  for (let c = 0; c < chunks; c++) {
    const parts: string[] = [];
    for (let r = 0; r < rows; r++) {
      const i = c * rows + r;
      parts.push(`[${i},"2025-01-01T00:00:${String(i % 60).padStart(2, '0')}Z","C${i % 7}",${i}.25]`);
    }
    seen.chunks++;
    yield enc.encode(parts.join(','));
  }
}

/** Consumes a stream, checking its bytes as they pass, and samples the heap on the way. */
async function drain(source: AsyncIterable<Uint8Array>, each: (piece: Uint8Array) => void) {
  // JS heap and the array buffers outside it (where the bytes live).
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const base = used();
  let peak = 0;
  let n = 0;
  let bytes = 0;
  for await (const piece of source) {
    each(piece);
    bytes += piece.length;
    if (++n % 50 === 0) peak = Math.max(peak, used() - base);
  }
  return { bytes, peakHeapGrowth: peak };
}

describe('streaming many chunks', { timeout: 120_000 }, () => {
  it('CSV: 2,000 chunks (1.6 million rows) pass through with flat memory and every row in order', async () => {
    const seen = { chunks: 0 };
    let lines = 0;
    let tail = '';
    let expectNext = 0;
    let ok = true;
    const dec = new TextDecoder();
    const res = await drain(csvStream(FIELDS, lazyChunks(2000, 800, seen), undefined, { bom: false }), (piece) => {
      const text = tail + dec.decode(piece, { stream: true });
      const parts = text.split('\r\n');
      tail = parts.pop()!;
      for (const line of parts) {
        lines++;
        if (lines === 1) continue;
        const id = Number(line.slice(0, line.indexOf(',')));
        if (id !== expectNext || !line.endsWith(`,${id}.25`)) ok = false;
        expectNext++;
      }
    });
    expect(seen.chunks).toBe(2000);
    expect(tail).toBe('');
    expect(ok).toBe(true);
    expect(lines).toBe(1 + 2000 * 800);
    expect(res.bytes).toBeGreaterThan(60_000_000);
    // The output is ~68 MB; what the writer holds at any time is a chunk or two.
    expect(res.peakHeapGrowth).toBeLessThan(48 * 1024 * 1024);
  });

  it('CSV zip: the deflated entry of 400 chunks inflates back to the right rows', async () => {
    const seen = { chunks: 0 };
    const inflated: Buffer[] = [];
    const zip = zipStream([{ name: 'big.csv', data: csvStream(FIELDS, lazyChunks(400, 800, seen), undefined, { bom: false }) }]);
    const parts: Uint8Array[] = [];
    const res = await drain(zip, (p) => parts.push(p));
    const all = Buffer.concat(parts);
    const nameLen = all.readUInt16LE(26);
    const cd = all.readUInt32LE(all.length - 6);
    const csize = all.readUInt32LE(cd + 20);
    inflated.push(zlib.inflateRawSync(all.subarray(30 + nameLen, 30 + nameLen + csize)));
    const text = inflated[0]!.toString('utf8');
    expect(text.split('\r\n').length - 2).toBe(400 * 800);
    expect(zlib.crc32(inflated[0]!)).toBe(all.readUInt32LE(cd + 16));
    expect(res.bytes).toBe(all.length);
  });

  it('XLSX: 300 chunks stream through a deflated worksheet with flat memory', async () => {
    const seen = { chunks: 0 };
    const res = await drain(xlsxStream([{ name: 'big', fields: FIELDS, chunks: lazyChunks(300, 800, seen) }]), () => {});
    expect(seen.chunks).toBe(300);
    expect(res.bytes).toBeGreaterThan(1_000_000);
    expect(res.peakHeapGrowth).toBeLessThan(48 * 1024 * 1024);
  });

  it('a web stream pulls only what its reader asks for, and cancelling closes the source', async () => {
    const seen = { chunks: 0 };
    let closed = false;
    const source = (async function* () {
      try {
        yield* csvStream(FIELDS, lazyChunks(1000, 800, seen), undefined, { flushBytes: 16 * 1024 });
      } finally {
        closed = true;
      }
    })();
    const stream = toReadableStream(source);
    const reader = stream.getReader();
    for (let i = 0; i < 3; i++) await reader.read();
    await new Promise((r) => setTimeout(r, 20));
    expect(seen.chunks).toBeLessThanOrEqual(5); // three read, one queued ahead — not all 1,000
    await reader.cancel();
    expect(closed).toBe(true);
  });
});
