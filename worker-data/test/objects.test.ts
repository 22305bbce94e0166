import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { objectChunkAt, objectChunks, PART_BYTES, type ResultBucket } from '@cairn/core/results/object';
import { collectRows, dataToken, dec, field, get, makeOrg, post, processToken, storeResult } from './fixtures.ts';
import { readZip } from './zip.ts';

/**
 * Results whose rows are one object of the region's R2 bucket (ARCHITECTURE D55), read by the data
 * server in every format, by page and in a zip — the same answers as for rows in result_chunks.
 */
const bucket = env.RESULTS as unknown as ResultBucket;
const FIELDS = [field(0, 'n', 'Integer'), field(1, 's', 'String'), field(2, 'x', 'Float'), field(3, 'd', 'Date')];
let org: string;

beforeAll(async () => {
  org = await makeOrg('objects');
});

const token = (key: string, over: Partial<Parameters<typeof dataToken>[0]> = {}) => dataToken({ org, key, ...over });
const rowsOf = (c: number, n: number, text = 'row') => Array.from({ length: n }, (_, r) => [c * n + r, `${text} ${c * n + r}`, (c * n + r) / 4, '2025-06-30']);

describe('results stored as R2 objects', () => {
  it('the object is the JSON rows as stored; empty chunks leave no stray comma', async () => {
    const stored = await storeResult(org, FIELDS, [rowsOf(0, 2), [], rowsOf(1, 2), []], { object: true });
    const obj = await bucket.get(stored.stored!.key);
    const text = dec.decode(new Uint8Array(await new Response(obj!.body).arrayBuffer()));
    expect(JSON.parse(`[${text}]`)).toEqual([...rowsOf(0, 2), ...rowsOf(1, 2)]);
    expect(stored.stored!.chunks.map((c) => c[0])).toEqual([2, 0, 2, 0]);
    const res = await get(`/data/${stored.key}`, `Data ${await token(stored.key)}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.rows).toEqual([...rowsOf(0, 2), ...rowsOf(1, 2)]);
    expect(body).toMatchObject({ execution_id: stored.exe, time_zone: 'UTC' });
  });

  it('a JSON download whose object is gone ends in an error, not a truncated document or a hang', async () => {
    const stored = await storeResult(org, FIELDS, [rowsOf(0, 3)], { object: true });
    await bucket.delete(stored.stored!.key);
    const res = await get(`/data/${stored.key}`, `Data ${await token(stored.key)}`);
    await expect(res.arrayBuffer()).rejects.toThrow();
  });

  it('an empty result: no rows (JSON) and a header (CSV)', async () => {
    const empty = await storeResult(org, FIELDS, [], { object: true });
    expect(((await (await get(`/data/${empty.key}`, `Data ${await token(empty.key)}`)).json()) as any).rows).toEqual([]);
    const csv = await get(`/data/${empty.key}`, `Data ${await token(empty.key, { format: 'csv' })}`);
    expect(dec.decode(new Uint8Array(await csv.arrayBuffer()))).toBe('n,s,x,d\r\n');
  });

  it('a result larger than one part goes up in parts and reads back whole, in every format and by page', async () => {
    // ~18 MB in wide rows: three parts of 8 MiB (the last one short).
    const chunks = Array.from({ length: 40 }, (_, c) => rowsOf(c, 220, 'x'.repeat(2000)));
    const big = await storeResult(org, FIELDS, chunks, { object: true });
    const n = 40 * 220;
    const size = big.stored!.chunks.reduce((a, c) => a + c[1] + 1, -1);
    expect(size).toBeGreaterThan(2 * PART_BYTES);
    const head = await env.RESULTS!.head(big.stored!.key);
    expect(head!.size).toBe(size);

    const json = (await (await get(`/data/${big.key}`, `Data ${await token(big.key)}`)).json()) as any;
    expect(json.rows.length).toBe(n);
    expect(json.rows.map((r: number[]) => r[0])).toEqual(Array.from({ length: n }, (_, i) => i));

    const csv = await collectRows(await get(`/data/${big.key}`, `Data ${await token(big.key, { format: 'csv' })}`));
    expect(csv.length).toBe(n + 1);
    expect(csv[n]).toBe(`${n - 1},${'x'.repeat(2000)} ${n - 1},${(n - 1) / 4},2025-06-30`);

    // A page across a chunk boundary and a part boundary.
    const page = (await (await get(`/data/${big.key}?offset=4170&limit=30`, `Data ${await token(big.key)}`)).json()) as any;
    expect(page).toMatchObject({ offset: 4170, limit: 30, row_count: n });
    expect(page.rows.map((r: number[]) => r[0])).toEqual(Array.from({ length: 30 }, (_, i) => 4170 + i));

    // Cut back into the chunks as written, and one chunk by a range read.
    let k = 0;
    for await (const chunk of objectChunks(bucket, big.stored!)) {
      expect(chunk.length).toBe(big.stored!.chunks[k]![1]);
      k++;
    }
    expect(k).toBe(40);
    const c21 = await objectChunkAt(bucket, big.stored!, 21);
    expect(JSON.parse(`[${dec.decode(c21!.data)}]`)).toEqual(chunks[21]);
  }, 180_000);

  it('multi-byte characters come back byte for byte', async () => {
    const texts = ['é è ñ', '漢字かな', '🙂 🚀 𝄞', 'tab\tquote"back\\slash'];
    const chunks = Array.from({ length: 6 }, (_, c) => texts.map((t, i) => [c * 10 + i, `${t} ${c}`, null, null]));
    const wide = await storeResult(org, FIELDS, chunks, { object: true });
    expect(((await (await get(`/data/${wide.key}`, `Data ${await token(wide.key)}`)).json()) as any).rows).toEqual(chunks.flat());
  });

  it('POST /process: JSON and a zip of CSV from objects and from result_chunks side by side', async () => {
    const a = await storeResult(org, [field(0, 'country', 'String'), field(1, 'revenue', 'Float')], [[['DE', 1200.5]], [['NL, BE', 10]]], { object: true });
    const b = await storeResult(org, [field(0, 'country', 'String'), field(1, 'revenue', 'Float')], [[['FR', 99.25]]]);
    const items = [
      { key: a.key, name: 'A', id: 'rpt_a' },
      { key: b.key, name: 'B', id: 'rpt_b' },
    ];
    const body = async (format: 'json' | 'csv_zip') => JSON.stringify({ data_access_token: await processToken({ org, items, format }) });
    const json = (await (await post('/process', await body('json'), 'application/json')).json()) as any;
    expect(json.rpt_a.rows).toEqual([
      ['DE', 1200.5],
      ['NL, BE', 10],
    ]);
    expect(json.rpt_b.rows).toEqual([['FR', 99.25]]);
    const files = await readZip(new Uint8Array(await (await post('/process', await body('csv_zip'), 'application/json')).arrayBuffer()));
    expect(dec.decode(files[0]!.data)).toBe('country,revenue\r\nDE,1200.5\r\n"NL, BE",10\r\n');
    expect(dec.decode(files[1]!.data)).toBe('country,revenue\r\nFR,99.25\r\n');
  });
});
