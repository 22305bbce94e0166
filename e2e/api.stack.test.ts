/**
 * The API and data servers over real HTTP, as `npm test` (or `npm start`) runs them: the sample dashboard
 * through the API key, a report's data through the data server, and the error envelope of bad requests.
 * Every JSON:API body is validated against the JSON:API project's own response schema.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_DASHBOARD_NAME, SAMPLE_REPORTS } from '@cairn/db/seed/sample-dashboard';
import { apiFetch, getStack, REPO_ROOT, type ApiResponse } from './harness.ts';

// CI checks out shared/ beside the clone; locally it is /work/shared.
const SCHEMA_PATH = resolve(REPO_ROOT, '../shared/conformance/jsonapi-1.0-response-schema.json');
const ajv = new Ajv2020({ allErrors: true, strict: false });
// The schema checks links with format "uri"; an absolute URL is what the API promises.
ajv.addFormat('uri', (value: string) => URL.canParse(value));
const validateDocument = ajv.compile(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as object);

/** Fails with ajv's findings (and the body) when the body is not a valid JSON:API response document. */
function expectJsonApi(res: ApiResponse): void {
  const ok = validateDocument(res.body);
  if (!ok) {
    throw new Error(`not a JSON:API document: ${ajv.errorsText(validateDocument.errors)}\n${res.text.slice(0, 800)}`);
  }
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/vnd\.api\+json/);
}

/** A JSON:API error answer with exactly this status and code. */
function expectError(res: ApiResponse, status: number, code?: string): void {
  expect(res.status, res.text).toBe(status);
  expectJsonApi(res);
  const body = res.body as { errors: { status: string; code: string; detail?: string }[]; jsonapi?: { version: string } };
  expect(body.errors.length).toBeGreaterThan(0);
  expect(body.errors[0]!.status).toBe(String(status));
  if (code) expect(body.errors[0]!.code).toBe(code);
  expect(body.jsonapi?.version).toBe('1.0');
}

interface Resource {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: { type: string; id: string }[] | { type: string; id: string } | null }>;
}

async function dataGet(base: string, dataKey: string, token: string | null): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Data ${token}`;
  const res = await fetch(`${base}/data/${dataKey}`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
}

let dashboard: Resource;

beforeAll(async () => {
  const res = await apiFetch<{ data: Resource[] }>('/dashboards');
  expect(res.status, res.text).toBe(200);
  const found = res.body.data.find((d) => d.attributes.name === SAMPLE_DASHBOARD_NAME);
  if (!found) throw new Error(`the dev organization has no "${SAMPLE_DASHBOARD_NAME}" dashboard: ${res.text.slice(0, 400)}`);
  dashboard = found;
});

describe('dashboards over HTTP', () => {
  it('lists the sample dashboard for the dev API key, as a valid JSON:API document', async () => {
    const res = await apiFetch<{ data: Resource[] }>('/dashboards');
    expect(res.status).toBe(200);
    expectJsonApi(res);
    expect(Array.isArray(res.body.data)).toBe(true);
    const sample = res.body.data.find((d) => d.id === dashboard.id)!;
    expect(sample.type).toBe('dashboards');
    expect(sample.attributes.name).toBe(SAMPLE_DASHBOARD_NAME);
    const reportRefs = sample.relationships?.reports?.data as { type: string; id: string }[];
    expect(reportRefs.map((r) => r.type)).toEqual(SAMPLE_REPORTS.map(() => 'reports'));
  });

  it('includes the reports with ?include=reports', async () => {
    const res = await apiFetch<{ data: Resource; included?: Resource[] }>(`/dashboards/${dashboard.id}?include=reports`);
    expect(res.status, res.text).toBe(200);
    expectJsonApi(res);
    expect(res.body.data.id).toBe(dashboard.id);
    const refs = (res.body.data.relationships!.reports!.data as { id: string }[]).map((r) => r.id).sort();
    const included = (res.body.included ?? []).filter((r) => r.type === 'reports');
    expect(included.map((r) => r.id).sort()).toEqual(refs);
    expect(included.map((r) => r.attributes.name).sort()).toEqual(SAMPLE_REPORTS.map((r) => r.name).sort());
    for (const report of included) {
      expect(typeof report.attributes.sql_query).toBe('string');
      expect(report.attributes.chart_configuration).toMatchObject({ type: expect.any(String) });
    }
  });

  it('answers 404 with the error envelope for a dashboard that does not exist', async () => {
    expectError(await apiFetch('/dashboards/dsh_doesnotexist000000000'), 404);
  });
});

describe('report data round trip', () => {
  it('runs a report, then the EU data server returns its rows and the US one refuses the EU token', async () => {
    const stack = getStack();
    const reportId = (dashboard.relationships!.reports!.data as { id: string }[])[0]!.id;
    const run = await apiFetch<{ data_key: string; data_access_token: string; data_url: string }>(`/reports/${reportId}/data`, {
      method: 'POST',
      body: {},
      headers: { 'content-type': 'application/json' },
    });
    expect(run.status, run.text).toBe(200);
    const { data_key, data_access_token, data_url } = run.body;
    expect(data_key).toMatch(/^eu\//);
    expect(data_access_token.length).toBeGreaterThan(20);
    expect(data_url).toBe(`${stack.regions.eu.data}/data/${data_key}`);

    const data = await dataGet(stack.regions.eu.data, data_key, data_access_token);
    expect(data.status, data.text).toBe(200);
    const body = data.body as { fields: { name: string; idx: number }[]; rows: unknown[][] };
    expect(body.fields.length).toBeGreaterThan(0);
    expect(body.rows.length).toBeGreaterThan(0);
    expect(body.rows[0]!.length).toBe(body.fields.length);

    const us = await dataGet(stack.regions.us.data, data_key, data_access_token);
    expectError(us, 403, 'wrong_region');
  });

  it('refuses data without a token or with a forged one', async () => {
    const stack = getStack();
    const reportId = (dashboard.relationships!.reports!.data as { id: string }[])[0]!.id;
    const run = await apiFetch<{ data_key: string; data_access_token: string }>(`/reports/${reportId}/data`, {
      method: 'POST',
      body: {},
      headers: { 'content-type': 'application/json' },
    });
    expect(run.status, run.text).toBe(200);
    expectError(await dataGet(stack.regions.eu.data, run.body.data_key, null), 401);
    const forged = `${run.body.data_access_token.slice(0, -4)}AAAA`;
    const bad = await dataGet(stack.regions.eu.data, run.body.data_key, forged);
    expect(bad.status, bad.text).toBeGreaterThanOrEqual(401);
    expect(bad.status).toBeLessThan(404);
    expectJsonApi(bad);
  });
});

describe('bad requests get the JSON:API error envelope, never a 500', () => {
  it('401 without an API key', async () => {
    expectError(await apiFetch('/dashboards', { key: null }), 401);
  });

  it('401 with a wrong key of the right shape', async () => {
    const key = getStack().api_key;
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    expectError(await apiFetch('/dashboards', { key: key.slice(0, -1) + last }), 401);
  });

  it('401 with a key that is not a Cairn key at all', async () => {
    expectError(await apiFetch('/dashboards', { key: 'not-a-key' }), 401);
  });

  it('400 for a malformed JSON body', async () => {
    const reportId = (dashboard.relationships!.reports!.data as { id: string }[])[0]!.id;
    const res = await apiFetch(`/reports/${reportId}/data`, {
      method: 'POST',
      body: '{"parameters": ',
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 400);
  });
});
