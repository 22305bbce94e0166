import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import postgres from 'postgres';
import { makeDataKey, newId } from '@cairn/core';
import { collectRows, dataToken, dec, errorOf, field, get, makeOrg, processToken, storeResult } from './fixtures.ts';
import { readZip } from './zip.ts';

let org: string;
let key: string;
let exe: string;
const FIELDS = [field(0, 'n', 'Integer'), field(1, 's', 'String'), field(2, 'x', 'Float'), field(3, 'd', 'Date')];

beforeAll(async () => {
  org = await makeOrg('data server');
  ({ key, exe } = await storeResult(org, FIELDS, [
    [
      [1, 'a', 1.5, '2024-01-02'],
      [2, 'b;c', -0.25, null],
    ],
    [[3, 'say "hi"', null, '2024-12-31']],
  ]));
});

const token = (over: Partial<Parameters<typeof dataToken>[0]> = {}, secret?: string) => dataToken({ org, key, ...over }, secret);

describe('GET /data/{dataKey}', () => {
  it('streams the stored result as one JSON document', async () => {
    const res = await get(`/data/${key}`, `Data ${await token()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('content-disposition')).toBeNull();
    const body = (await res.json()) as any;
    expect(body.rows).toEqual([
      [1, 'a', 1.5, '2024-01-02'],
      [2, 'b;c', -0.25, null],
      [3, 'say "hi"', null, '2024-12-31'],
    ]);
    expect(body.fields.map((f: any) => f.name)).toEqual(['n', 's', 'x', 'd']);
    expect(body).toMatchObject({ execution_id: exe, data_timestamp: '2026-01-02T03:04:05.000Z', time_zone: 'UTC' });
  });

  it('CSV when the token says so, with its options and a file name', async () => {
    const res = await get(
      `/data/${key}`,
      `Data ${await token({
        format: 'csv',
        name: 'Umsätze: 2024',
        csv: { column_separator: 'semicolon', decimal_separator: 'comma', quote_style: 'necessary' },
      })}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Umsatze 2024.csv"; filename*=UTF-8''Ums%C3%A4tze%202024.csv`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(dec.decode(bytes.subarray(3))).toBe('n;s;x;d\r\n1;a;1,5;2024-01-02\r\n2;"b;c";-0,25;\r\n3;"say ""hi""";;2024-12-31\r\n');
  });

  it('CSV with the default options when the token names none', async () => {
    const res = await get(`/data/${key}`, `Data ${await token({ format: 'csv' })}`);
    expect(res.headers.get('content-disposition')).toContain(`filename="data ${exe}.csv"`);
    expect(dec.decode(new Uint8Array(await res.arrayBuffer()))).toBe('n,s,x,d\r\n1,a,1.5,2024-01-02\r\n2,b;c,-0.25,\r\n3,"say ""hi""",,2024-12-31\r\n');
  });

  it('XLSX: a workbook with one sheet named after the report', async () => {
    const res = await get(`/data/${key}`, `Data ${await token({ format: 'xlsx', name: 'Revenue [EUR]' })}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.headers.get('content-disposition')).toContain('filename="Revenue [EUR].xlsx"');
    const files = await readZip(new Uint8Array(await res.arrayBuffer()));
    const text = (n: string) => dec.decode(files.find((f) => f.name === n)!.data);
    expect(text('xl/workbook.xml')).toContain('<sheet name="Revenue EUR" sheetId="1" r:id="rId1"/>');
    const sheet = text('xl/worksheets/sheet1.xml');
    expect(sheet).toContain('<c r="C2"><v>1.5</v></c><c r="D2" s="1"><v>45293</v></c>');
    expect(sheet).toContain('<c r="B4" t="inlineStr"><is><t>say "hi"</t></is></c>');
  });

  it('401 without a token or with another scheme', async () => {
    for (const auth of [undefined, `Api ${await token()}`, `Data`]) {
      const res = await get(`/data/${key}`, auth);
      expect(res.status).toBe(401);
      expect((await errorOf(res)).code).toBe('unauthorized');
    }
  });

  it('401 for a forged, expired, other-key or other-kind token', async () => {
    const cases: [string, string][] = [
      [await token({}, 'not-the-secret'), 'invalid_data_token'],
      [await token({ exp: Math.floor(Date.now() / 1000) - 1 }), 'data_token_expired'],
      [await token({ key: makeDataKey('eu', org, exe, 'ffffffffffffffff') }), 'invalid_data_token'],
      [await token({ kind: 'schema' }), 'invalid_data_token'],
      [await processToken({ org, items: [{ key, name: 'x', id: 'rpt_1' }] }), 'invalid_data_token'],
      ['garbage', 'invalid_data_token'],
      ['bnVsbA.c2ln', 'invalid_data_token'],
    ];
    for (const [t, code] of cases) {
      const res = await get(`/data/${key}`, `Data ${t}`);
      expect(res.status, code).toBe(401);
      expect((await errorOf(res)).code).toBe(code);
    }
  });

  it('403 for a token issued by the other region', async () => {
    const res = await get(`/data/${key}`, `Data ${await token({ region: 'us' }, 'the-us-secret')}`);
    expect(res.status).toBe(403);
    const err = await errorOf(res);
    expect(err.code).toBe('wrong_region');
    expect(err.detail).toContain('"us"');
  });

  it('404 once the result is gone or expired, even with a valid token', async () => {
    const gone = makeDataKey('eu', org, newId('execution'), 'aaaaaaaaaaaaaaaa');
    expect((await get(`/data/${gone}`, `Data ${await token({ key: gone })}`)).status).toBe(404);
    const old = await storeResult(org, FIELDS, [[[1, 'a', 1, null]]], { expired: true });
    expect((await get(`/data/${old.key}`, `Data ${await token({ key: old.key })}`)).status).toBe(404);
  });

  it('a token of another organization cannot read this result', async () => {
    const res = await get(`/data/${key}`, `Data ${await token({ org: newId('organization') })}`);
    expect(res.status).toBe(404);
  });

  it('an empty result is a header (CSV) or no rows (JSON)', async () => {
    const empty = await storeResult(org, FIELDS, []);
    const json = (await (await get(`/data/${empty.key}`, `Data ${await token({ key: empty.key })}`)).json()) as any;
    expect(json.rows).toEqual([]);
    const csv = await get(`/data/${empty.key}`, `Data ${await token({ key: empty.key, format: 'csv' })}`);
    expect(dec.decode(new Uint8Array(await csv.arrayBuffer()))).toBe('n,s,x,d\r\n');
  });

  it('streams a result of many chunks in every format, rows in order', async () => {
    const chunks = Array.from({ length: 150 }, (_, c) =>
      Array.from({ length: 40 }, (_, r) => [c * 40 + r, `row ${c * 40 + r}`, (c * 40 + r) / 4, '2025-06-30']),
    );
    const big = await storeResult(org, FIELDS, chunks);
    const n = 150 * 40;
    const json = (await (await get(`/data/${big.key}`, `Data ${await token({ key: big.key })}`)).json()) as any;
    expect(json.rows.length).toBe(n);
    expect(json.rows.map((r: number[]) => r[0])).toEqual(Array.from({ length: n }, (_, i) => i));
    const csv = await collectRows(await get(`/data/${big.key}`, `Data ${await token({ key: big.key, format: 'csv' })}`));
    expect(csv.length).toBe(n + 1);
    expect(csv[n]).toBe(`${n - 1},row ${n - 1},${(n - 1) / 4},2025-06-30`);
    const xlsx = await readZip(new Uint8Array(await (await get(`/data/${big.key}`, `Data ${await token({ key: big.key, format: 'xlsx' })}`)).arrayBuffer()));
    const sheet = dec.decode(xlsx.find((f) => f.name === 'xl/worksheets/sheet1.xml')!.data);
    expect(sheet.match(/<row /g)!.length).toBe(n + 1);
    expect(sheet).toContain(`<row r="${n + 1}"><c r="A${n + 1}"><v>${n - 1}</v></c>`);
  });

  it('hands on the stored bytes exactly, characters of any width included', async () => {
    const texts = ['plain', 'é è ñ', '漢字かな', '🙂 🚀 𝄞', 'tab\tquote"back\\slash', '\u2028 line sep'];
    const chunks = Array.from({ length: 12 }, (_, c) => texts.map((t, i) => [c * 10 + i, `${t} ${c}`, null, null]));
    const wide = await storeResult(org, FIELDS, chunks);
    const json = (await (await get(`/data/${wide.key}`, `Data ${await token({ key: wide.key })}`)).json()) as any;
    expect(json.rows).toEqual(chunks.flat());
  });

  it('a client that stops reading half-way leaves no query running, and the result stays readable', async () => {
    const chunks = Array.from({ length: 60 }, (_, c) => Array.from({ length: 400 }, (_, r) => [c * 400 + r, 'x'.repeat(200), r / 3, '2025-01-01']));
    const big = await storeResult(org, FIELDS, chunks);
    const res = await get(`/data/${big.key}`, `Data ${await token({ key: big.key })}`);
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    const admin = postgres(env.HYPERDRIVE.connectionString, { max: 1, fetch_types: false, onnotice: () => {} });
    let running = -1;
    for (let i = 0; i < 100 && running !== 0; i++) {
      const [row] = await admin<{ n: number }[]>`select count(*)::int as n from pg_stat_activity
        where state = 'active' and query like 'select seq, data from result_chunks%' and pid <> pg_backend_pid()`;
      running = row!.n;
      if (running) await new Promise((r) => setTimeout(r, 50));
    }
    expect(running).toBe(0);
    const again = (await (await get(`/data/${big.key}`, `Data ${await token({ key: big.key })}`)).json()) as any;
    expect(again.rows.length).toBe(60 * 400);
    expect(again.rows[60 * 400 - 1][0]).toBe(60 * 400 - 1);
  });

  it('reads fields stored as a JSON string (double-encoded) like fields stored as an array', async () => {
    const twice = await storeResult(org, JSON.stringify(FIELDS) as never, [[[1, 'a', 1.5, null]]]);
    const json = (await (await get(`/data/${twice.key}`, `Data ${await token({ key: twice.key })}`)).json()) as any;
    expect(json.fields.map((f: any) => f.name)).toEqual(['n', 's', 'x', 'd']);
    const csv = await get(`/data/${twice.key}`, `Data ${await token({ key: twice.key, format: 'csv' })}`);
    expect(await collectRows(csv)).toEqual(['n,s,x,d', '1,a,1.5,']);
  });

  it('health answers without auth', async () => {
    const res = await get('/health');
    expect(await res.json()).toMatchObject({ ok: true, service: 'cairn-data', region: 'eu' });
  });
});
