import { describe, expect, it } from 'vitest';
import { ApiClient } from './api.server';
import type { AppEnv, ServiceBinding } from './env.server';
import { callMissing, executionRows, loadSchema, PREVIEW_ROWS, write } from './editor.server';
import { binding } from './service-binding.test-kit';

const envelope = (status: number, code: string, detail: string, pointer?: string) =>
  Response.json({ errors: [{ status: String(status), code, detail, ...(pointer ? { source: { pointer } } : {}) }] }, { status });
const page = new Request('http://app/app/reports/new?dashboard=d1');
const client = (api: ServiceBinding, data: ServiceBinding = api) => new ApiClient({ API: api, DATA: data } as AppEnv, page, 'tok123');
const handle = { data_key: 'eu/org_1/sch_1/abc', data_access_token: 'tkn', data_url: 'x' };

describe('schema through the API and the data server', () => {
  it('fetches the data key from the API, then the schema from the data server with the data token', async () => {
    const api = binding(() => Response.json(handle));
    const schema = { schemas: [{ name: 'public', tables: [{ name: 't', columns: [{ name: 'id', db_type: 'int4', data_type: 'Integer' }] }] }] };
    const data = binding(() => Response.json(schema));
    const answer = await loadSchema(client(api), data, 'dsr_1', 'public');
    expect(answer).toEqual({ status: 'ok', schema });
    expect(new URL(api.seen[0]!.url).pathname + new URL(api.seen[0]!.url).search).toBe('/datasources/dsr_1/schema?name=public');
    expect(new URL(data.seen[0]!.url).pathname).toBe('/schema/eu/org_1/sch_1/abc');
    expect(data.seen[0]!.headers.get('Authorization')).toBe('Data tkn');
  });

  it('says the call is not available when the API has no such route, and reports other failures', async () => {
    const missing = binding(() => envelope(404, 'not_found', 'No route for GET /datasources/dsr_1/schema.'));
    expect((await loadSchema(client(missing), missing, 'dsr_1')).status).toBe('unavailable');
    const gone = binding(() => envelope(404, 'not_found', 'No datasource with id "dsr_1".'));
    expect(await loadSchema(client(gone), gone, 'dsr_1')).toEqual({ status: 'error', message: 'No datasource with id "dsr_1".' });
    const expired = binding(() => envelope(401, 'data_token_expired', 'The data token has expired.'));
    expect(await loadSchema(client(binding(() => Response.json(handle))), expired, 'dsr_1')).toEqual({
      status: 'error',
      message: 'The data token has expired.',
    });
    const badKey = binding(() => Response.json({ data_key: '../etc', data_access_token: 't' }));
    expect((await loadSchema(client(badKey), badKey, 'dsr_1')).status).toBe('error');
    expect(callMissing(405, null)).toBe(true);
    expect(callMissing(404, { errors: [{ detail: 'No report "x".' }] })).toBe(false);
  });
});

/** A data server that answers pages as the real one does (offset, limit, row_count), and only pages. */
const pagingServer = (rows: unknown[][], timestamp: string | null) =>
  binding((req) => {
    const q = new URL(req.url).searchParams;
    if (q.get('offset') === null || q.get('limit') === null)
      return Response.json({ errors: [{ detail: 'the app asked for the whole result' }] }, { status: 400 });
    const offset = Number(q.get('offset'));
    const limit = Number(q.get('limit'));
    return Response.json({
      offset,
      limit,
      row_count: rows.length,
      fields: [{ idx: 0, name: 'n', data_type: 'Integer' }],
      rows: rows.slice(offset, offset + limit),
      data_timestamp: timestamp,
    });
  });

describe('execution rows', () => {
  it('answers empty for 204 and asks the data server for one page only', async () => {
    const noRows = binding(() => new Response(null, { status: 204 }));
    expect(await executionRows(client(noRows), noRows, 'exe_1')).toEqual({ status: 'empty' });
    const rows = Array.from({ length: PREVIEW_ROWS + 5 }, (_, i) => [i]);
    const data = pagingServer(rows, '2026-01-01T00:00:00Z');
    const answer = await executionRows(client(binding(() => Response.json(handle))), data, 'exe_1');
    expect(answer).toMatchObject({ status: 'ok', rowCount: PREVIEW_ROWS + 5, truncated: true, dataTimestamp: '2026-01-01T00:00:00Z' });
    expect(answer.status === 'ok' && answer.rows.length).toBe(PREVIEW_ROWS);
    expect(new URL(data.seen[0]!.url).search).toBe(`?offset=0&limit=${PREVIEW_ROWS}`);
    const none = pagingServer([], null);
    expect(await executionRows(client(binding(() => Response.json(handle))), none, 'exe_1')).toEqual({ status: 'empty' });
    const running = binding(() => envelope(422, 'invalid_state', 'The execution is running.'));
    expect(await executionRows(client(running), running, 'exe_1')).toEqual({ status: 'error', message: 'The execution is running.' });
  });
});

describe('execution rows past the first page', () => {
  it('answers the page from an offset with the whole result’s row count', async () => {
    const rows = Array.from({ length: PREVIEW_ROWS * 2 + 7 }, (_, i) => [i]);
    const data = pagingServer(rows, null);
    const second = await executionRows(client(binding(() => Response.json(handle))), data, 'exe_1', PREVIEW_ROWS);
    expect(second).toMatchObject({ status: 'ok', rowCount: PREVIEW_ROWS * 2 + 7, offset: PREVIEW_ROWS });
    expect(second.status === 'ok' && second.rows[0]).toEqual([PREVIEW_ROWS]);
    expect(second.status === 'ok' && second.rows.length).toBe(PREVIEW_ROWS);
    const last = await executionRows(client(binding(() => Response.json(handle))), data, 'exe_1', PREVIEW_ROWS * 2);
    expect(last.status === 'ok' && last.rows).toEqual([...Array(7).keys()].map((i) => [PREVIEW_ROWS * 2 + i]));
    expect(new URL(data.seen[0]!.url).pathname).toBe('/data/eu/org_1/sch_1/abc');
    expect(new URL(data.seen[1]!.url).search).toBe(`?offset=${PREVIEW_ROWS * 2}&limit=${PREVIEW_ROWS}`);
  });
});

describe('writes', () => {
  it('sends JSON:API bodies and returns every error of a 422 with its pointer', async () => {
    const api = binding(() =>
      Response.json(
        {
          errors: [
            { status: '422', code: 'missing_attribute', detail: 'name is required.', source: { pointer: '/data/attributes/name' } },
            { status: '422', code: 'invalid_attribute', detail: 'bad', source: { pointer: '/data/attributes/sql_query' } },
          ],
        },
        { status: 422 },
      ),
    );
    const res = await write(client(api), 'POST', '/reports', { data: { type: 'reports', attributes: {} } });
    expect(res).toEqual({
      ok: false,
      status: 422,
      errors: [
        expect.objectContaining({ code: 'missing_attribute', source: { pointer: '/data/attributes/name' } }),
        expect.objectContaining({ code: 'invalid_attribute', source: { pointer: '/data/attributes/sql_query' } }),
      ],
    });
    expect(api.seen[0]!.headers.get('Content-Type')).toBe('application/vnd.api+json');
    const action = binding(() => Response.json({ data: { id: 'dsh_1' } }));
    await write(client(action), 'PUT', '/dashboards/dsh_1/layout', { layout: [] }, false);
    expect(action.seen[0]!.headers.get('Content-Type')).toBe('application/json');
  });
});
