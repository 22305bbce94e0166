import { crc32 } from '@cairn/core/export/crc32';

/** A zip reader for tests inside workerd: checks headers, descriptors and CRCs; inflates with DecompressionStream. */
export async function readZip(bytes: Uint8Array): Promise<{ name: string; data: Uint8Array }[]> {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = bytes.length - 22;
  if (v.getUint32(eocd, true) !== 0x06054b50) throw new Error('no end of central directory');
  const count = v.getUint16(eocd + 10, true);
  let p = v.getUint32(eocd + 16, true);
  const out: { name: string; data: Uint8Array }[] = [];
  for (let i = 0; i < count; i++) {
    if (v.getUint32(p, true) !== 0x02014b50) throw new Error('bad central header');
    const method = v.getUint16(p + 10, true);
    const crc = v.getUint32(p + 16, true);
    const csize = v.getUint32(p + 20, true);
    const usize = v.getUint32(p + 24, true);
    const nameLen = v.getUint16(p + 28, true);
    const local = v.getUint32(p + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(p + 46, p + 46 + nameLen));
    p += 46 + nameLen + v.getUint16(p + 30, true) + v.getUint16(p + 32, true);
    if (v.getUint32(local, true) !== 0x04034b50) throw new Error(`bad local header of ${name}`);
    const start = local + 30 + v.getUint16(local + 26, true) + v.getUint16(local + 28, true);
    const raw = bytes.subarray(start, start + csize);
    const data = method === 0 ? raw : await inflate(raw);
    if (data.length !== usize) throw new Error(`size of ${name}`);
    if (crc32(data) !== crc) throw new Error(`CRC of ${name}`);
    const desc = start + csize;
    if (v.getUint32(desc, true) !== 0x08074b50 || v.getUint32(desc + 4, true) !== crc) throw new Error(`data descriptor of ${name}`);
    out.push({ name, data });
  }
  return out;
}

async function inflate(raw: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([raw]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
