/**
 * The malformed-input fuzz for the data server (issue 14): every route (`/process`, `/data/*`,
 * `/schema/*`, `/exports/:jobId`, `/health`, unknown ones) gets broken and hostile input: broken JSON,
 * wrong roots and types, U+0000, huge and unicode values, seeded fast-check values, broken forms, bad
 * path keys and query parameters, broken Authorization headers, unsigned tokens with crafted claims, and
 * signed tokens whose claims have the wrong shapes. No answer may be a 5xx, and every refusal is a
 * JSON:API error document. The routes come from the app: a new one fails the first test until it is
 * named here.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { env, SELF } from 'cloudflare:test';
import fc from 'fast-check';
import { signDataToken, signProcessToken } from '@cairn/core';
import { createApp } from '../src/app.ts';
import { dataToken, field, makeOrg, processToken, storeResult } from './fixtures.ts';

const SEED = 20261127;
const KNOWN_ROUTES = ['GET /health', 'GET /openapi.json', 'GET /data/*', 'GET /schema/*', 'GET /exports/:jobId', 'POST /process'];

let org: string;
let key: string;
/** A stored schema document (the API stores them as a result whose chunks are one JSON document). */
let schemaKey: string;
let goodData: string;
let goodSchema: string;
let goodProcess: string;
let problems: string[] = [];
const figures = { requests: 0, status5xx: 0, badErrorDocuments: 0 };

const NUL_STRINGS = ['\u0000', 'before\u0000after'];
const UNICODE = ['👩‍👩‍👧‍👦🏳️‍🌈'.repeat(300), 'مرحبا \u202Eevil\u202C שלום'.repeat(100), '\uD800 lone \uDFFF', '\uFEFF\u200B\u2028\u2029', 'x'.repeat(200_000)];
const WRONG_TYPES: unknown[] = [12345, -0.5, true, false, [], {}, ['a', 1], { nested: { x: [1] } }, 1e308, null];
const BROKEN_JSON = ['{', '{"data_access_token":', '{"a": 1,}', 'nul', '[1, 2', '{"a": "\\x"}', '\u0000', '{} trailing', "{'single': 1}", '{"a": 1}}'];
const WRONG_ROOTS = ['[]', '"text"', '42', 'null', 'true', '['.repeat(20_000) + ']'.repeat(20_000), '{"a":'.repeat(3_000) + '1' + '}'.repeat(3_000)];
const BAD_SEGMENTS = ['%00', 'a%00b', '%E0%A4%A', '%', '%FF%FE', encodeURIComponent('🙂'.repeat(50)), 'x'.repeat(5_000), '..%2F..%2Fhealth', 'eu/%00/x/y'];
const BAD_QUERY_VALUES = ['', '-1', 'abc', '1e309', '%00', '9'.repeat(400), encodeURIComponent('🙂'), '1.5', '0x10', '%FF'];

const b64url = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
/** Unsigned tokens whose claims are every shape but the right one (read before the signature: the region). */
const CRAFTED_TOKENS = [
  '',
  '.',
  '..',
  'a.b.c',
  'a.b',
  '%%%.@@@',
  'x'.repeat(20_000) + '.y',
  `${b64url('not json')}.sig`,
  `${b64url('[]')}.sig`,
  `${b64url('null')}.sig`,
  `${b64url('{"region":{"toString":1},"exp":1e99,"kind":"data","org":"o"}')}.sig`,
  `${b64url('{"region":"eu","exp":"soon","kind":"data","org":"o"}')}.sig`,
  `${b64url('{"region":"eu","exp":1e99,"kind":["data"],"org":{}}')}.sig`,
  `${b64url('{"region":"mars","exp":1e99,"kind":"data","org":"o"}')}.sig`,
  `${b64url(JSON.stringify({ region: 'eu', exp: 1e99, kind: 'data', org: 'o\u0000', key: '\uD800' }))}.${b64url('x')}`,
];

async function send(method: string, path: string, init: { headers?: Record<string, string>; body?: string | FormData } = {}, what = '') {
  const res = await SELF.fetch(`https://data.test${path}`, { method, headers: init.headers, body: init.body });
  figures.requests++;
  const text = await res.text();
  const label = `${method} ${path.slice(0, 80)} [${what.slice(0, 60)}] → ${res.status}`;
  if (res.status >= 500) {
    figures.status5xx++;
    problems.push(`${label}: ${text.slice(0, 300)}`);
  }
  if (res.status >= 400) {
    let ok = false;
    try {
      const doc = JSON.parse(text);
      ok =
        Array.isArray(doc.errors) &&
        doc.errors.length > 0 &&
        doc.errors.every(
          (e: any) => typeof e.status === 'string' && typeof e.code === 'string' && typeof e.detail === 'string' && e.status === String(res.status),
        );
    } catch {
      ok = false;
    }
    if (!ok) {
      figures.badErrorDocuments++;
      problems.push(`${label}: not a JSON:API error document: ${text.slice(0, 200)}`);
    }
  }
  return { status: res.status, text };
}

/** Run `fn` over `items` with a few requests in flight at once. */
async function pool<T>(items: T[], fn: (x: T) => Promise<unknown>, width = 4) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const postJson = (body: string, what: string, contentType = 'application/json') =>
  send('POST', '/process', { headers: { 'content-type': contentType }, body }, what);
const refused = (res: { status: number }, what: string) => {
  if (res.status < 400) problems.push(`${what}: accepted with ${res.status}`);
};

beforeAll(async () => {
  org = await makeOrg('data fuzz');
  ({ key } = await storeResult(
    org,
    [field(0, 'n', 'Integer'), field(1, 's', 'String')],
    [
      [
        [1, 'a'],
        [2, 'b'],
      ],
    ],
  ));
  goodData = await dataToken({ org, key });
  ({ key: schemaKey } = await storeResult(org, [], [[]], {
    raw: [
      new TextEncoder().encode(
        JSON.stringify({ schemas: [{ name: 'public', tables: [{ name: 't', columns: [{ name: 'a', db_type: 'int4', data_type: 'Integer' }] }] }] }),
      ),
    ],
  }));
  goodSchema = await dataToken({ org, key: schemaKey, kind: 'schema' });
  goodProcess = await processToken({ org, items: [{ id: 'r1', name: 'R', key }] });
});

beforeEach(() => {
  problems = [];
});

describe('malformed input to the data server never gives a 5xx', () => {
  it('knows every route the data server serves (a new one fails here until it is fuzzed)', () => {
    const served = [
      ...new Set(
        createApp()
          .routes.filter((r) => r.method !== 'ALL')
          .map((r) => `${r.method} ${r.path}`),
      ),
    ];
    expect(served.sort()).toEqual([...KNOWN_ROUTES].sort());
  });

  it('POST /process: broken JSON, wrong roots, other media types, broken forms', async () => {
    const cases: [string, string, string][] = [
      ...BROKEN_JSON.map((b): [string, string, string] => [b, 'application/json', `broken ${b.slice(0, 12)}`]),
      ...WRONG_ROOTS.map((b): [string, string, string] => [b, 'application/json', `root ${b.slice(0, 12)}`]),
      ['{"data_access_token":"x"}', 'text/plain', 'text/plain'],
      ['{"data_access_token":"x"}', '', 'no content type'],
      ['{"data_access_token":"x"}', 'application/json; charset=\u00ff', 'odd charset'],
      ['data_access_token=%00', 'application/x-www-form-urlencoded', 'form NUL'],
      ['data_access_token=%E0%A4%A&x', 'application/x-www-form-urlencoded', 'form bad encoding'],
      [`data_access_token=${'x'.repeat(300_000)}`, 'application/x-www-form-urlencoded', 'form huge'],
      ['--x\r\nContent-Disposition: form-data; name="data_access_token"\r\n\r\nabc', 'multipart/form-data; boundary=x', 'multipart cut'],
      ['garbage', 'multipart/form-data', 'multipart without boundary'],
      ['--y\r\n\r\n--y--', 'multipart/form-data; boundary=x', 'multipart wrong boundary'],
    ];
    await pool(cases, async ([body, type, what]) =>
      refused(await send('POST', '/process', { headers: type ? { 'content-type': type } : {}, body }, what), what),
    );
    expect(problems, problems.join('\n')).toEqual([]);
  }, 120_000);

  it('POST /process: wrong types, NUL, huge, unicode, crafted and random tokens', async () => {
    const values: unknown[] = [
      ...WRONG_TYPES,
      ...NUL_STRINGS,
      ...UNICODE,
      ...CRAFTED_TOKENS,
      ...fc.sample(fc.jsonValue({ maxDepth: 3 }), { seed: SEED, numRuns: 20 }),
      ...fc.sample(fc.string({ unit: 'grapheme', maxLength: 300 }), { seed: SEED, numRuns: 10 }),
    ];
    await pool(values, async (v) => {
      const what = `token ${JSON.stringify(v)?.slice(0, 40)}`;
      refused(await postJson(JSON.stringify({ data_access_token: v }), what), what);
      if (typeof v === 'string') {
        const form = new URLSearchParams({ data_access_token: v }).toString();
        refused(await postJson(form, `form ${what}`, 'application/x-www-form-urlencoded'), `form ${what}`);
      }
    });
    expect(problems, problems.join('\n')).toEqual([]);
  }, 180_000);

  it('GET /data, /schema and /exports: bad keys, ids, Authorization headers and query parameters', async () => {
    const cases: { path: string; headers: Record<string, string>; what: string }[] = [];
    const auths = [
      '',
      'Data',
      'Data ',
      'Bearer x',
      `Data ${'x'.repeat(20_000)}`,
      'Data a b',
      'Data \u00ff\u00fe',
      ...CRAFTED_TOKENS.filter((t) => t).map((t) => `Data ${t}`),
    ];
    for (const prefix of ['data', 'schema']) {
      for (const seg of BAD_SEGMENTS)
        cases.push({
          path: `/${prefix}/${seg}`,
          headers: { authorization: `Data ${prefix === 'data' ? goodData : goodSchema}` },
          what: `key ${seg.slice(0, 20)}`,
        });
      for (const a of auths)
        cases.push({ path: `/${prefix}/${prefix === 'data' ? key : schemaKey}`, headers: a ? { authorization: a } : {}, what: `auth ${a.slice(0, 30)}` });
    }
    for (const name of ['offset', 'limit']) {
      for (const v of BAD_QUERY_VALUES)
        cases.push({ path: `/data/${key}?${name}=${v}`, headers: { authorization: `Data ${goodData}` }, what: `${name}=${v.slice(0, 20)}` });
    }
    for (const v of [...BAD_QUERY_VALUES, encodeURIComponent(UNICODE[0]!)])
      cases.push({ path: `/schema/${schemaKey}?name=${v}`, headers: { authorization: `Data ${goodSchema}` }, what: `name=${v.slice(0, 20)}` });
    for (const seg of BAD_SEGMENTS) cases.push({ path: `/exports/${seg}?token=${encodeURIComponent(goodData)}`, headers: {}, what: `job ${seg.slice(0, 20)}` });
    const job = `export_${'a'.repeat(24)}`;
    for (const t of [...CRAFTED_TOKENS, '%00', '%E0%A4%A'])
      cases.push({ path: `/exports/${job}?token=${t.startsWith('%') ? t : encodeURIComponent(t)}`, headers: {}, what: `export token ${t.slice(0, 20)}` });
    await pool(cases, async (c) => {
      const res = await send('GET', c.path, { headers: c.headers }, c.what);
      // A good token with an odd page or schema name may still answer 200; everything else is refused.
      if (!/^(offset|limit|name)=/.test(c.what)) refused(res, `${c.path.slice(0, 60)} [${c.what}]`);
    });
    expect(problems, problems.join('\n')).toEqual([]);
  }, 180_000);

  it('signed tokens whose claims have the wrong shapes are refused, never a 5xx', async () => {
    const secret = env.DATA_TOKEN_SECRET;
    // What only a holder of the secret could send; the server must still not fall over on it.
    const odd: unknown[] = [...WRONG_TYPES, ...NUL_STRINGS, UNICODE[0], UNICODE[2], 'x'.repeat(10_000)];
    const data = await Promise.all(
      odd.flatMap((v) => [
        signDataToken({ kind: 'data', region: 'eu', org, key: v as string }, secret),
        signDataToken({ kind: 'data', region: 'eu', org: v as string, key }, secret),
        signDataToken({ kind: 'data', region: 'eu', org, key, format: v as 'csv' }, secret),
        signDataToken({ kind: 'data', region: 'eu', org, key, format: 'csv', csv: v as never }, secret),
        signDataToken({ kind: 'data', region: 'eu', org, key, format: 'csv', name: v as string }, secret),
        signDataToken({ kind: 'schema', region: 'eu', org, key: schemaKey, name: v as string }, secret),
      ]),
    );
    const process = await Promise.all(
      odd.flatMap((v) => [
        signProcessToken({ kind: 'process', region: 'eu', org, format: 'json', items: v as never }, secret),
        signProcessToken({ kind: 'process', region: 'eu', org, format: 'json', items: [v as never] }, secret),
        signProcessToken({ kind: 'process', region: 'eu', org, format: 'json', items: [{ id: v as string, name: v as string, key }] }, secret),
        signProcessToken({ kind: 'process', region: 'eu', org, format: 'json', items: [{ id: 'r', name: 'R', key: v as string }] }, secret),
        signProcessToken({ kind: 'process', region: 'eu', org, format: v as 'json', items: [{ id: 'r', name: 'R', key }] }, secret),
        signProcessToken(
          { kind: 'process', region: 'eu', org, format: 'csv_zip', csv: v as never, name: v as string, items: [{ id: 'r', name: v as string, key }] },
          secret,
        ),
      ]),
    );
    await pool(data, async (t) => {
      const kind = JSON.parse(atob(t.split('.')[0]!.replace(/-/g, '+').replace(/_/g, '/'))).kind;
      await send('GET', kind === 'schema' ? `/schema/${schemaKey}` : `/data/${key}`, { headers: { authorization: `Data ${t}` } }, 'signed odd claims');
    });
    await pool(process, (t) => postJson(JSON.stringify({ data_access_token: t }), 'signed odd process claims'));
    expect(problems, problems.join('\n')).toEqual([]);
  }, 180_000);

  it('good calls still work, and other methods and paths answer JSON:API errors', async () => {
    expect((await send('GET', `/data/${key}`, { headers: { authorization: `Data ${goodData}` } }, 'good')).status).toBe(200);
    expect((await postJson(JSON.stringify({ data_access_token: goodProcess }), 'good')).status).toBe(200);
    const schema = await send('GET', `/schema/${schemaKey}?name=public`, { headers: { authorization: `Data ${goodSchema}` } }, 'good');
    expect(JSON.parse(schema.text).schemas[0].name).toBe('public');
    // The OpenAPI document takes no input: odd query strings and headers change nothing.
    for (const query of ['', '?%00', '?x=' + 'y'.repeat(5000), '?a[b]=c']) {
      const doc = await send('GET', `/openapi.json${query}`, { headers: { authorization: 'Data %00' } }, 'openapi');
      expect(doc.status, query).toBe(200);
      expect(JSON.parse(doc.text).openapi).toMatch(/^3\./);
    }
    for (const [method, path] of [
      ['PUT', '/process'],
      ['DELETE', `/data/${key}`],
      ['POST', `/data/${key}`],
      ['GET', '/'],
      ['GET', '/%00'],
      ['PATCH', '/health'],
      ['POST', '/openapi.json'],
      ['GET', `/${'x'.repeat(5000)}`],
    ] as const) {
      refused(
        await send(method, path, method === 'GET' || method === 'DELETE' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }, 'method/path'),
        `${method} ${path.slice(0, 20)}`,
      );
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('figures', () => {
    console.log(`data server fuzz figures: ${JSON.stringify(figures)}`);
    expect(figures.requests).toBeGreaterThan(300);
    expect(figures.status5xx).toBe(0);
  });
});
