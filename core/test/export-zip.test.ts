import { describe, expect, it, vi } from 'vitest';
import zlib from 'node:zlib';
import { collect, crc32, dosDateTime, zipStream, ZipLimitError } from '../src/export/index.ts';
import { enc, hasPython, PY_ZIP_CHECK, python, readZip } from './export-helpers.ts';

// These tests start a Python process to read what was written: seconds on a loaded machine (npm test runs
// the stack beside this suite), not the 5 s of vitest's default.
vi.setConfig({ testTimeout: 60_000 });

function* pieces(text: string, size: number) {
  const bytes = enc.encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

describe('crc32', () => {
  it('matches the standard check value and zlib, in one go or continued', () => {
    expect(crc32(enc.encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array())).toBe(0);
    const data = new Uint8Array(100_003).map((_, i) => (i * 131 + (i >> 3)) & 0xff);
    expect(crc32(data)).toBe(zlib.crc32(data));
    let c = 0;
    for (const cut of [0, 1, 7, 8, 9, 4096, 50_000, 100_003]) {
      c = crc32(data.subarray(0, cut));
      expect(crc32(data.subarray(cut), c)).toBe(zlib.crc32(data));
    }
  });
});

describe('zip', () => {
  const big = 'row,of,text\r\n'.repeat(50_000) + 'the end';
  const entries = () => [
    { name: 'Umsätze 2024.csv', data: pieces(big, 10_000) },
    { name: 'stored.txt', data: pieces('not compressed 😀', 4), method: 'store' as const },
    { name: 'empty.csv', data: [] },
    {
      name: 'folder/deep.xml',
      data: (async function* () {
        yield enc.encode('<a/>');
      })(),
    },
  ];

  it('writes local headers, data descriptors and a central directory that agree, with correct CRCs', async () => {
    const bytes = await collect(zipStream(entries()));
    const files = readZip(bytes);
    expect(files.map((f) => f.name)).toEqual(['Umsätze 2024.csv', 'stored.txt', 'empty.csv', 'folder/deep.xml']);
    expect(files.map((f) => f.method)).toEqual([8, 0, 8, 8]);
    for (const f of files) expect(f.flags).toBe(0x0808); // data descriptor + UTF-8 names
    expect(files[0]!.data.toString('utf8')).toBe(big);
    expect(files[1]!.data.toString('utf8')).toBe('not compressed 😀');
    expect(files[2]!.data.length).toBe(0);
    expect(files[3]!.data.toString('utf8')).toBe('<a/>');
    // deflate did compress the repetitive CSV
    expect(bytes.length).toBeLessThan(big.length / 20);
  });

  it.runIf(hasPython)("Python's zipfile reads it and every CRC checks out", async () => {
    const bytes = await collect(zipStream(entries()));
    const res = python(bytes, PY_ZIP_CHECK);
    expect(res.bad).toBeNull();
    expect(res.names).toEqual(['Umsätze 2024.csv', 'stored.txt', 'empty.csv', 'folder/deep.xml']);
    expect(res.parsed).toEqual(['folder/deep.xml']);
  });

  it('dates entries in MS-DOS format', () => {
    const { time, date } = dosDateTime(new Date(Date.UTC(2024, 1, 29, 13, 45, 31)));
    expect(date).toBe(((2024 - 1980) << 9) | (2 << 5) | 29);
    expect(time).toBe((13 << 11) | (45 << 5) | 15);
  });

  it('guards the limits of zip without ZIP64', async () => {
    const many = function* () {
      for (let i = 0; i <= 0xffff; i++) yield { name: `${i}`, data: [], method: 'store' as const };
    };
    await expect(collect(zipStream(many()))).rejects.toBeInstanceOf(ZipLimitError);
    await expect(collect(zipStream([{ name: 'big', data: pieces('x'.repeat(5000), 1000), method: 'store' as const }], { maxBytes: 4096 }))).rejects.toThrow(
      /too large/,
    );
    await expect(collect(zipStream([{ name: 'big', data: pieces('x'.repeat(5000), 1000) }], { maxBytes: 4096 }))).rejects.toThrow(/too large/);
  }, 60_000); // 65,536 entries: about a second alone, more than vitest's default 5 s beside the other suites (npm test's lanes)

  it('an error of the source ends the archive with that error', async () => {
    const failing = async function* () {
      yield enc.encode('some data');
      throw new Error('database went away');
    };
    await expect(collect(zipStream([{ name: 'a', data: failing() }]))).rejects.toThrow('database went away');
    await expect(collect(zipStream([{ name: 'a', data: failing(), method: 'store' }]))).rejects.toThrow('database went away');
  });

  it('stopping early closes the sources', async () => {
    let closed = 0;
    const endless = async function* () {
      try {
        for (;;) yield enc.encode('x'.repeat(70_000) + Math.random());
      } finally {
        closed++;
      }
    };
    for (const method of ['deflate', 'store'] as const) {
      const zip = zipStream([{ name: 'a', data: endless(), method }]);
      let n = 0;
      for await (const _ of zip) if (++n === 5) break;
    }
    expect(closed).toBe(2);
  });
});
