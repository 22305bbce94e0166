/**
 * `@cairn/client` against the running stack: the typed API and data clients through the integrator's
 * round trip (list, report data with a range filter in both documented forms, the data server's rows
 * checked against its OpenAPI document, the status poll, a dashboard download, a JSON:API create and
 * delete, a typed error), and the committed types equal to what the live documents generate.
 */
import { readFile } from 'node:fs/promises';
import Ajv2020 from 'ajv/dist/2020.js';
import openapiTS, { astToString } from 'openapi-typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_DASHBOARD_NAME } from '@cairn/db/seed/sample-dashboard';
import { column, createApiClient, createDataClient, dataAuthorization, type ApiClient, type DataSchema } from '@cairn/client';
import { getStack } from './harness.ts';

let api: ApiClient;
let dashboardId: string;
let reportIds: string[];

beforeAll(async () => {
  const stack = getStack();
  api = createApiClient({ baseUrl: stack.regions.eu.api, apiKey: stack.api_key });
  const { data, error } = await api.GET('/dashboards', { params: { query: { 'page[size]': '200' } } });
  if (error) throw new Error(JSON.stringify(error));
  const sample = data.data.find((d) => d.attributes.name === SAMPLE_DASHBOARD_NAME);
  if (!sample) throw new Error(`no "${SAMPLE_DASHBOARD_NAME}" dashboard`);
  dashboardId = sample.id;
  const reports = sample.relationships?.reports?.data;
  reportIds = Array.isArray(reports) ? reports.map((r) => r.id) : [];
  expect(reportIds.length).toBeGreaterThan(1);
});

async function liveDocument(base: string): Promise<any> {
  const res = await fetch(`${base}/openapi.json`);
  expect(res.status).toBe(200);
  return res.json();
}

/** Runs a report with these filters and fetches its rows through the data client. */
async function reportRows(reportId: string, filters: { variable_name: string; selected_values: (string | null)[] }[]) {
  const {
    data: handle,
    error,
    response,
  } = await api.POST('/reports/{id}/data', {
    params: { path: { id: reportId } },
    body: { parameters: { filters } },
  });
  expect(error, JSON.stringify(error)).toBeUndefined();
  expect(response.status).toBe(200);
  const data = createDataClient({ baseUrl: new URL(handle!.data_url).origin });
  const { data: result, error: dataError } = await data.GET('/data/{dataKey}', {
    params: { path: { dataKey: handle!.data_key } },
    headers: dataAuthorization(handle!.data_access_token),
  });
  expect(dataError, JSON.stringify(dataError)).toBeUndefined();
  return { handle: handle!, result: result! };
}

describe('@cairn/client against the stack', () => {
  it("report data: the two documented forms of a date range give the same rows, and every cell fits the data server's document", async () => {
    const stack = getStack();
    const one = await reportRows(reportIds[1]!, [{ variable_name: 'order_date', selected_values: ['2024-01-01~2026-12-31'] }]);
    const two = await reportRows(reportIds[1]!, [{ variable_name: 'order_date', selected_values: ['2024-01-01', '2026-12-31'] }]);
    expect(one.handle.data_key).toMatch(/^eu\//);
    expect(one.result.rows.length).toBeGreaterThan(0);
    expect(two.result.rows).toEqual(one.result.rows);
    const open = await reportRows(reportIds[1]!, [{ variable_name: 'order_date', selected_values: ['2024-01-01~'] }]);
    const openTwo = await reportRows(reportIds[1]!, [{ variable_name: 'order_date', selected_values: ['2024-01-01', null] }]);
    expect(openTwo.result.rows).toEqual(open.result.rows);
    expect(open.result.rows.length).toBeGreaterThanOrEqual(one.result.rows.length);

    // Validate the live answer against the live document, and each cell against its data type's form.
    const doc = await liveDocument(stack.regions.eu.data);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile({ ...doc.components.schemas.DataResult, components: doc.components });
    expect(validate(one.result), ajv.errorsText(validate.errors)).toBe(true);
    for (const field of one.result.fields) {
      const cell = ajv.compile(doc.components.schemas.CellValues.properties[field.data_type]);
      for (const value of column(one.result, field.name)!) expect(cell(value), `${field.name} (${field.data_type}): ${JSON.stringify(value)}`).toBe(true);
    }
  });

  it('pages through the data client and types the query parameters', async () => {
    const { handle } = await reportRows(reportIds[1]!, []);
    const data = createDataClient({ baseUrl: getStack().regions.eu.data });
    const { data: page, response } = await data.GET('/data/{dataKey}', {
      params: { path: { dataKey: handle.data_key }, query: { offset: 1, limit: 2 } },
      headers: dataAuthorization(handle.data_access_token),
    });
    expect(response.status).toBe(200);
    const paged: DataSchema<'DataResult'> = page!;
    expect(paged).toMatchObject({ offset: 1, limit: 2 });
    expect(paged.rows.length).toBeLessThanOrEqual(2);
  });

  it("the status poll takes the docs' minimal body; a csv_zip download names only what differs from the defaults", async () => {
    const { data: status, error } = await api.POST('/dashboards/{id}/status', {
      params: { path: { id: dashboardId } },
      body: { parameters: { aggregation: 'week' } },
    });
    expect(error).toBeUndefined();
    expect(status!.reports.map((r) => r.report_id).sort()).toEqual([...reportIds].sort());
    expect(status!.status_check_delay).toBeGreaterThan(0);

    const { data: download, error: downloadError } = await api.POST('/dashboards/{id}/data', {
      params: { path: { id: dashboardId } },
      body: { data_format: 'csv_zip', csv_column_separator: 'semicolon' },
    });
    expect(downloadError, JSON.stringify(downloadError)).toBeUndefined();
    const data = createDataClient({ baseUrl: new URL(download!.data_url).origin });
    const { data: zip, response } = await data.POST('/process', { body: { data_access_token: download!.data_process_token }, parseAs: 'arrayBuffer' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect([...new Uint8Array(zip!).subarray(0, 2)]).toEqual([0x50, 0x4b]);
  });

  it('creates and deletes a dashboard with a JSON:API body (the client sets the media type), and types error answers', async () => {
    const created = await api.POST('/dashboards', { body: { data: { type: 'dashboards', attributes: { name: 'Client e2e' } } } });
    expect(created.error, JSON.stringify(created.error)).toBeUndefined();
    expect(created.response.status).toBe(201);
    const id = created.data!.data.id;
    expect(id).toMatch(/^dsh_/);
    expect(created.data!.data.attributes.name).toBe('Client e2e');
    const removed = await api.DELETE('/dashboards/{id}', { params: { path: { id } } });
    expect(removed.response.status).toBe(204);

    const missing = await api.GET('/dashboards/{id}', { params: { path: { id } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error!.errors[0]!.code).toBe('not_found');
    const invalid = await api.POST('/dashboards', { body: { data: { type: 'dashboards', attributes: { name: '' } } } });
    expect(invalid.response.status).toBe(422);
    expect(invalid.error!.errors[0]!.source?.pointer).toBe('/data/attributes/name');
  });

  it("the committed types are what the running servers' documents generate", async () => {
    const stack = getStack();
    for (const [name, base] of [
      ['api', stack.regions.eu.api],
      ['data', stack.regions.eu.data],
    ] as const) {
      const generated = astToString(await openapiTS(await liveDocument(base)));
      const committed = await readFile(new URL(`../client/src/generated/${name}.ts`, import.meta.url), 'utf8');
      expect(committed.endsWith(generated), `client/src/generated/${name}.ts differs from ${base}/openapi.json`).toBe(true);
    }
  }, 120_000);
});
