/**
 * The data server's OpenAPI document (GET /openapi.json) against the server's live answers: each answer
 * is validated with a JSON Schema validator (@cfworker/json-schema runs in workerd, ajv does not) against
 * the schema the document gives for its call and status, and each cell against its field's data type.
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import { beforeAll, describe, expect, it } from 'vitest';
import { dataToken, enc, field, get, makeOrg, post, processToken, storeResult } from './fixtures.ts';

let doc: any;
let org: string;
let key: string;
let schemaKey: string;

const FIELDS = [
  field(0, 'n', 'Integer'),
  field(1, 'big', 'BigInt'),
  field(2, 's', 'String'),
  field(3, 'x', 'Float'),
  field(4, 'd', 'Date'),
  field(5, 'at', 'DateTime'),
  field(6, 'ok', 'Boolean'),
  field(7, 'tags', 'Array<String>'),
  field(8, 'j', 'JSON'),
  field(9, 't', 'Time'),
];
const ROWS = [
  [1, '9007199254740993', 'a', 1.5, '2024-01-02', '2024-01-02T03:04:05Z', true, ['x', null], { a: [1] }, '08:30:00'],
  [null, 42, null, null, null, null, null, null, null, null],
];

beforeAll(async () => {
  doc = await (await get('/openapi.json')).json();
  org = await makeOrg('openapi');
  ({ key } = await storeResult(org, FIELDS, [ROWS]));
  const schemaDoc = { schemas: [{ name: 'public', tables: [{ name: 'orders', columns: [{ name: 'id', db_type: 'int8', data_type: 'BigInt' }] }] }] };
  ({ key: schemaKey } = await storeResult(org, [], [[]], { raw: [enc.encode(JSON.stringify(schemaDoc))] }));
});

/** A validator for a schema of the document (its `$ref`s resolve inside the document). */
function validator(schema: object): Validator {
  return new Validator({ ...schema, components: doc.components } as Schema, '2020-12', false);
}

/** The schema the document gives for this call's answer of this status and media type. */
function answerSchema(path: string, method: string, status: number, media: string): object {
  const op = doc.paths[path]?.[method];
  expect(op, `${method} ${path}`).toBeDefined();
  const response = op.responses[String(status)];
  expect(response, `${method} ${path} does not list ${status}`).toBeDefined();
  const schema = response.content?.[media]?.schema;
  expect(schema, `${method} ${path} ${status} has no ${media} body`).toBeDefined();
  return schema;
}

async function expectAnswer(res: Response, path: string, method: string): Promise<any> {
  const media = res.status < 400 ? 'application/json' : 'application/vnd.api+json';
  expect(res.headers.get('content-type') ?? '').toContain(media);
  const body = await res.json();
  const result = validator(answerSchema(path, method, res.status, media)).validate(body);
  expect(result.errors.map((e) => `${e.instanceLocation}: ${e.error}`)).toEqual([]);
  return body;
}

/** Each cell against the form of its field's data type (CellValues). */
function cellFindings(body: { fields: { idx: number; name: string; data_type: string }[]; rows: unknown[][] }): string[] {
  const out: string[] = [];
  for (const f of body.fields) {
    const v = validator(doc.components.schemas.CellValues.properties[f.data_type]);
    for (const [i, row] of body.rows.entries()) {
      if (!v.validate(row[f.idx]).valid) out.push(`row ${i} ${f.name} (${f.data_type}): ${JSON.stringify(row[f.idx])}`);
    }
  }
  return out;
}

describe('GET /openapi.json of the data server', () => {
  it('needs no token and describes the data calls with the data token scheme', async () => {
    const res = await get('/openapi.json');
    expect(res.status).toBe(200);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('v2024-06-01');
    expect(doc.servers[0].url).toBe('https://data.test');
    expect(doc.components.securitySchemes.DataToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/data/{dataKey}', '/schema/{dataKey}', '/process']));
    expect(doc.paths['/process'].post.security).toEqual([]);
    // Every data type of core has its cell form.
    expect(Object.keys(doc.components.schemas.CellValues.properties)).toEqual(doc.components.schemas.Field.properties.data_type.enum);
  });

  it('GET /data answers fit DataResult, and every cell fits its data type', async () => {
    const whole = await expectAnswer(await get(`/data/${key}`, `Data ${await dataToken({ org, key })}`), '/data/{dataKey}', 'get');
    expect(whole.rows).toEqual(ROWS);
    expect(cellFindings(whole)).toEqual([]);
    const page = await expectAnswer(await get(`/data/${key}?offset=1&limit=1`, `Data ${await dataToken({ org, key })}`), '/data/{dataKey}', 'get');
    expect(page).toMatchObject({ offset: 1, limit: 1, row_count: 2 });
  });

  it('the cell forms refuse a value of another type', () => {
    const findings = cellFindings({
      fields: [field(0, 'n', 'Integer'), field(1, 'd', 'Date'), field(2, 'tags', 'Array<Integer>')],
      rows: [['1', 20240102, [1, 'two']]],
    });
    expect(findings).toHaveLength(3);
  });

  it('POST /process JSON fits ProcessResult', async () => {
    const token = await processToken({ org, items: [{ key, name: 'All types', id: 'rep_a' }], format: 'json' });
    const body = await expectAnswer(await post('/process', JSON.stringify({ data_access_token: token }), 'application/json'), '/process', 'post');
    expect(cellFindings(body.rep_a)).toEqual([]);
  });

  it('GET /schema fits SchemaDocument', async () => {
    const res = await get(`/schema/${schemaKey}`, `Data ${await dataToken({ org, key: schemaKey, kind: 'schema' })}`);
    const body = await expectAnswer(res, '/schema/{dataKey}', 'get');
    expect(body.schemas[0].name).toBe('public');
  });

  it('error answers are listed for their call and fit Errors', async () => {
    await expectAnswer(await get(`/data/${key}`), '/data/{dataKey}', 'get'); // 401
    await expectAnswer(await get(`/data/${key}?limit=x`, `Data ${await dataToken({ org, key })}`), '/data/{dataKey}', 'get'); // 400
    const gone = await storeResult(org, FIELDS, [ROWS], { expired: true });
    await expectAnswer(await get(`/data/${gone.key}`, `Data ${await dataToken({ org, key: gone.key })}`), '/data/{dataKey}', 'get'); // 404
    await expectAnswer(await post('/process', JSON.stringify({ other: 1 }), 'application/json'), '/process', 'post'); // 422
    await expectAnswer(await post('/process', 'x', 'text/plain'), '/process', 'post'); // 415
  });
});
