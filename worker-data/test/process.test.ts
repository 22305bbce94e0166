import { beforeAll, describe, expect, it } from 'vitest';
import { makeDataKey, newId, type ProcessItem } from '@cairn/core';
import { dec, errorOf, field, makeOrg, post, processToken, dataToken, storeResult } from './fixtures.ts';
import { readZip } from './zip.ts';

let org: string;
let items: ProcessItem[];

beforeAll(async () => {
  org = await makeOrg('process');
  const a = await storeResult(
    org,
    [field(0, 'country', 'String'), field(1, 'revenue', 'Float')],
    [
      [
        ['DE', 1200.5],
        ['FR', 99.25],
      ],
      [['NL, BE', 10]],
    ],
  );
  const b = await storeResult(
    org,
    [field(0, 'day', 'Date'), field(1, 'orders', 'Integer'), field(2, 'ok', 'Boolean')],
    [
      [
        ['2024-05-01', 3, true],
        ['2024-05-02', null, false],
      ],
    ],
  );
  const empty = await storeResult(org, [field(0, 'x', 'Integer')], []);
  items = [
    { key: a.key, name: 'Revenue / Country', id: 'rpt_a' },
    { key: b.key, name: 'Orders: daily [all]', id: 'rpt_b' },
    { key: empty.key, name: 'Revenue / Country', id: 'rpt_c' },
  ];
});

const json = async (over: Partial<Parameters<typeof processToken>[0]> = {}) =>
  JSON.stringify({ data_access_token: await processToken({ org, items, ...over }) });

describe('POST /process', () => {
  it('JSON: an object keyed by report id with each result', async () => {
    const res = await post('/process', await json({ format: 'json' }), 'application/json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await res.json()) as any;
    expect(Object.keys(body)).toEqual(['rpt_a', 'rpt_b', 'rpt_c']);
    expect(body.rpt_a).toMatchObject({
      report_id: 'rpt_a',
      name: 'Revenue / Country',
      data_key: items[0]!.key,
      rows: [
        ['DE', 1200.5],
        ['FR', 99.25],
        ['NL, BE', 10],
      ],
    });
    expect(body.rpt_a.fields.map((f: any) => f.name)).toEqual(['country', 'revenue']);
    expect(body.rpt_b.rows).toEqual([
      ['2024-05-01', 3, true],
      ['2024-05-02', null, false],
    ]);
    expect(body.rpt_c.rows).toEqual([]);
    expect(body.rpt_b).toMatchObject({ data_timestamp: '2026-01-02T03:04:05.000Z', time_zone: 'UTC' });
  });

  it("csv_zip: one CSV per report, named after it, with the token's CSV options", async () => {
    const res = await post(
      '/process',
      await json({
        format: 'csv_zip',
        name: 'Sales dashboard',
        csv: { column_separator: 'tab', decimal_separator: 'comma', quote_style: 'always' },
      }),
      'application/json',
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toContain('filename="Sales dashboard.zip"');
    const files = await readZip(new Uint8Array(await res.arrayBuffer()));
    expect(files.map((f) => f.name)).toEqual(['Revenue Country.csv', 'Orders daily [all].csv', 'Revenue Country (2).csv']);
    expect(dec.decode(files[0]!.data)).toBe('"country"\t"revenue"\r\n"DE"\t"1200,5"\r\n"FR"\t"99,25"\r\n"NL, BE"\t"10"\r\n');
    expect(dec.decode(files[1]!.data)).toBe('"day"\t"orders"\t"ok"\r\n"2024-05-01"\t"3"\t"true"\r\n"2024-05-02"\t\t"false"\r\n');
    expect(dec.decode(files[2]!.data)).toBe('"x"\r\n');
    expect([...files[0]!.data.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  });

  it('csv_zip with the default options', async () => {
    const res = await post('/process', await json({ format: 'csv_zip' }), 'application/json');
    expect(res.headers.get('content-disposition')).toContain('filename="dashboard data.zip"');
    const files = await readZip(new Uint8Array(await res.arrayBuffer()));
    expect(dec.decode(files[0]!.data)).toBe('country,revenue\r\nDE,1200.5\r\nFR,99.25\r\n"NL, BE",10\r\n');
  });

  it('xlsx: one workbook, a sheet per report with a valid unique name', async () => {
    const res = await post('/process', await json({ format: 'xlsx', name: 'Sales' }), 'application/json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.headers.get('content-disposition')).toContain('filename="Sales.xlsx"');
    const files = await readZip(new Uint8Array(await res.arrayBuffer()));
    const text = (n: string) => dec.decode(files.find((f) => f.name === n)!.data);
    expect(text('xl/workbook.xml')).toContain(
      '<sheets><sheet name="Revenue Country" sheetId="1" r:id="rId1"/><sheet name="Orders daily all" sheetId="2" r:id="rId2"/>' +
        '<sheet name="Revenue Country (2)" sheetId="3" r:id="rId3"/></sheets>',
    );
    expect(text('xl/worksheets/sheet1.xml')).toContain('<c r="A4" t="inlineStr"><is><t>NL, BE</t></is></c><c r="B4"><v>10</v></c>');
    expect(text('xl/worksheets/sheet2.xml')).toContain('<c r="A2" s="1"><v>45413</v></c><c r="B2"><v>3</v></c><c r="C2" t="b"><v>1</v></c>');
    expect(text('xl/worksheets/sheet3.xml')).toContain('<row r="1"><c r="A1" s="4" t="inlineStr"><is><t>x</t></is></c></row></sheetData>');
  });

  it('a browser form post downloads the file', async () => {
    const form = new URLSearchParams({ data_access_token: await processToken({ org, items, format: 'csv_zip' }) });
    const res = await post('/process', form, 'application/x-www-form-urlencoded');
    expect(res.status).toBe(200);
    expect((await readZip(new Uint8Array(await res.arrayBuffer()))).length).toBe(3);
    const multipart = new FormData();
    multipart.set('data_access_token', await processToken({ org, items, format: 'json' }));
    const res2 = await post('/process', multipart);
    expect(res2.status).toBe(200);
    expect(Object.keys((await res2.json()) as object)).toEqual(['rpt_a', 'rpt_b', 'rpt_c']);
  });

  it('body problems: missing token 422, bad JSON 400, unknown member 422, wrong media type 415', async () => {
    const cases: [string | URLSearchParams, string | undefined, number, string][] = [
      ['', 'application/json', 422, 'missing_attribute'],
      ['{}', 'application/json', 422, 'missing_attribute'],
      ['{"data_access_token": 5}', 'application/json', 422, 'invalid_attribute'],
      ['{"data_access_token": ', 'application/json', 400, 'malformed_json'],
      ['[1]', 'application/json', 400, 'bad_request'],
      ['{"data_access_token": "x", "format": "csv"}', 'application/json', 422, 'unknown_attribute'],
      [new URLSearchParams({ other: '1' }), 'application/x-www-form-urlencoded', 422, 'missing_attribute'],
      ['data_access_token=x', 'text/plain', 415, 'unsupported_media_type'],
    ];
    for (const [body, type, status, code] of cases) {
      const res = await post('/process', body, type);
      expect(res.status, `${String(body)} ${type}`).toBe(status);
      expect((await errorOf(res)).code).toBe(code);
    }
  });

  it('token problems: forged, expired, other region, data token instead of process token', async () => {
    const send = async (t: string) => post('/process', JSON.stringify({ data_access_token: t }), 'application/json');
    const cases: [string, number, string][] = [
      [await processToken({ org, items }, 'forged-secret'), 401, 'invalid_data_token'],
      [await processToken({ org, items, exp: Math.floor(Date.now() / 1000) - 5 }), 401, 'data_token_expired'],
      [await processToken({ org, items, region: 'us' }, 'the-us-secret'), 403, 'wrong_region'],
      [await dataToken({ org, key: items[0]!.key }), 401, 'invalid_data_token'],
      ['not.a-token', 401, 'invalid_data_token'],
    ];
    for (const [t, status, code] of cases) {
      const res = await send(t);
      expect(res.status, code).toBe(status);
      const err = await errorOf(res);
      expect(err.code).toBe(code);
      if (code === 'invalid_data_token' && t.startsWith('ey')) expect(err.detail).toMatch(/not valid|data process token/);
    }
  });

  it('404 naming the report when one of its results is gone, before any byte is sent', async () => {
    const gone = makeDataKey('eu', org, newId('execution'), 'bbbbbbbbbbbbbbbb');
    const res = await post(
      '/process',
      await json({ format: 'xlsx', items: [items[0]!, { key: gone, name: 'Old report', id: 'rpt_old' }] }),
      'application/json',
    );
    expect(res.status).toBe(404);
    expect((await errorOf(res)).detail).toContain('"Old report"');
  });

  it("another organization's results are not found", async () => {
    const res = await post('/process', JSON.stringify({ data_access_token: await processToken({ org: newId('organization'), items }) }), 'application/json');
    expect(res.status).toBe(404);
  });

  it('streams results of many chunks into the zip and the workbook', async () => {
    const chunks = Array.from({ length: 120 }, (_, c) => Array.from({ length: 50 }, (_, r) => [`c${c}`, c * 50 + r + 0.5]));
    const big = await storeResult(org, [field(0, 'country', 'String'), field(1, 'revenue', 'Float')], chunks);
    const many = [{ key: big.key, name: 'Big', id: 'rpt_big' }, items[1]!];
    const zip = await readZip(new Uint8Array(await (await post('/process', await json({ format: 'csv_zip', items: many }), 'application/json')).arrayBuffer()));
    const lines = dec.decode(zip[0]!.data).split('\r\n');
    expect(lines.length).toBe(6000 + 2);
    expect(lines[6000]).toBe('c119,5999.5');
    const wb = await readZip(new Uint8Array(await (await post('/process', await json({ format: 'xlsx', items: many }), 'application/json')).arrayBuffer()));
    const sheet = dec.decode(wb.find((f) => f.name === 'xl/worksheets/sheet1.xml')!.data);
    expect(sheet.match(/<row /g)!.length).toBe(6001);
  });
});
