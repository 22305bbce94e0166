import { isRouteErrorResponse } from 'react-router';
import { describe, expect, it } from 'vitest';
import { ApiClient, problemFrom } from './api.server';
import type { AppEnv } from './env.server';
import { loadReportData } from './report-data.server';
import { binding } from './service-binding.test-kit';

const envelope = (status: number, code: string, detail: string) =>
  Response.json({ errors: [{ status: String(status), code, title: 'x', detail }], jsonapi: { version: '1.0' } }, { status });
const page = new Request('http://app/app/dashboards/d1?f.a=1');

describe('API client', () => {
  it('sends the session token and reads JSON:API error envelopes', async () => {
    const api = binding(() => envelope(403, 'forbidden', 'Not for you.'));
    const client = new ApiClient({ API: api, DATA: api } as AppEnv, page, 'tok123');
    const result = await client.call('GET', '/dashboards');
    expect(result).toEqual({ ok: false, problem: { status: 403, code: 'forbidden', message: 'Not for you.' } });
    expect(api.seen[0]!.headers.get('Authorization')).toBe('Session tok123');
    expect(new URL(api.seen[0]!.url).pathname).toBe('/dashboards');
  });

  it('turns 401 into a redirect to sign-in (clearing the cookie) and other errors into status responses', async () => {
    const client = new ApiClient({ API: binding(() => envelope(401, 'unauthorized', 'expired')) } as unknown as AppEnv, page, 'tok');
    const thrown = await client.get('/auth/session').catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(302);
    expect((thrown as Response).headers.get('Location')).toBe('/app/login?next=%2Fapp%2Fdashboards%2Fd1%3Ff.a%3D1');
    expect((thrown as Response).headers.get('Set-Cookie')).toContain('Max-Age=0');

    const notFound = client.toResponse({ status: 404, code: 'not_found', message: 'No dashboard.' });
    expect(notFound).not.toBeInstanceOf(Response);
    const asError = { status: 404, statusText: '', internal: false, data: (notFound as { data: unknown }).data };
    expect(isRouteErrorResponse(asError)).toBe(true);
    expect((notFound as { init?: { status?: number } }).init?.status).toBe(404);
    expect((client.toResponse({ status: 500, code: 'internal_error', message: 'x' }) as { init?: { status?: number } }).init?.status).toBe(503);
  });

  it('reports an unreachable API as 503 and non-JSON errors with a default message', async () => {
    const down = new ApiClient(
      {
        API: binding(() => {
          throw new Error('no');
        }),
      } as unknown as AppEnv,
      page,
      null,
    );
    expect(await down.call('GET', '/x')).toMatchObject({ ok: false, problem: { status: 503 } });
    expect(problemFrom(404, 'not json')).toMatchObject({ status: 404, message: expect.stringContaining('does not exist') });
  });
});

describe('report data', () => {
  const result = { fields: [{ idx: 0, name: 'n', data_type: 'Integer' }], rows: [[1], [2]], data_timestamp: 't' };

  it('asks the API for a data key, then fetches the path of data_key (not data_url) from the data server', async () => {
    const api = binding(() =>
      Response.json({ data_key: 'eu/org_1/exe_1/abc', data_access_token: 'dt', data_url: 'http://elsewhere:1/data/eu/org_1/exe_1/abc' }),
    );
    const data = binding(() => Response.json(result));
    const client = new ApiClient({ API: api, DATA: data } as AppEnv, page, 'tok');
    const out = await loadReportData(client, data, 'rep_1', { filters: [{ variable_name: 'c', selected_values: ['DE'] }] }, null);
    expect(out).toEqual({ status: 'ok', fields: result.fields, rows: [[1], [2]], rowCount: 2, dataTimestamp: 't' });
    expect(await api.seen[0]!.json()).toEqual({ parameters: { filters: [{ variable_name: 'c', selected_values: ['DE'] }] }, data_format: 'json' });
    expect(new URL(data.seen[0]!.url).pathname).toBe('/data/eu/org_1/exe_1/abc');
    expect(new URL(data.seen[0]!.url).host).not.toBe('elsewhere:1');
    expect(data.seen[0]!.headers.get('Authorization')).toBe('Data dt');
  });

  it('maps 204 to the report’s no-data message and failures to the tile’s error message', async () => {
    const data = binding(() => Response.json(result));
    const noRows = new ApiClient({ API: binding(() => new Response(null, { status: 204 })) } as unknown as AppEnv, page, 't');
    expect(await loadReportData(noRows, data, 'r', {}, 'Nothing here.')).toEqual({ status: 'empty', message: 'Nothing here.' });
    expect(await loadReportData(noRows, data, 'r', {}, null)).toEqual({ status: 'empty', message: 'No data' });

    const badSql = new ApiClient({ API: binding(() => envelope(422, 'query_error', 'column "x" does not exist')) } as unknown as AppEnv, page, 't');
    expect(await loadReportData(badSql, data, 'r', {}, null)).toEqual({ status: 'error', message: 'column "x" does not exist' });

    const evilKey = new ApiClient({ API: binding(() => Response.json({ data_key: '../../admin', data_access_token: 'x' })) } as unknown as AppEnv, page, 't');
    expect(await loadReportData(evilKey, data, 'r', {}, null)).toMatchObject({ status: 'error' });

    const ok = new ApiClient({ API: binding(() => Response.json({ data_key: 'k/1', data_access_token: 'x' })) } as unknown as AppEnv, page, 't');
    const expired = binding(() => envelope(401, 'data_token_expired', 'The data token has expired.'));
    expect(await loadReportData(ok, expired, 'r', {}, null)).toEqual({ status: 'error', message: 'The data token has expired.' });
    const broken = binding(() => new Response('<html>', { status: 200 }));
    expect(await loadReportData(ok, broken, 'r', {}, null)).toMatchObject({ status: 'error' });
  });
});
