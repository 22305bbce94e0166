import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { and, eq } from 'drizzle-orm';
import { executions, reports, results } from '@cairn/db';
import { newId, verifyDataToken } from '@cairn/core';
import { call, db, makeKey, makeOrg } from '../../../test/fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
const byChart = (type: string) => org.sampleDashboard.reports.find((r) => (r.chart_configuration as { type: string }).type === type)!;

beforeAll(async () => {
  org = await makeOrg('report-data');
  key = await makeKey(org.organization.id);
});

/** A report with this SQL on the sample dashboard and datasource. */
async function sampleReport(name: string, sql_query: string): Promise<string> {
  const id = newId('report');
  await db().insert(reports).values({
    id,
    organization_id: org.organization.id,
    dashboard_id: org.sampleDashboard.id,
    datasource_id: org.sampleDatasource.id,
    name,
    sql_query,
  });
  return id;
}

const data = (id: string, body?: unknown) => call(`/reports/${id}/data`, { key, method: 'POST', body });
const countryFilter = (...codes: unknown[]) => ({ parameters: { filters: [{ variable_name: 'country', selected_values: codes }] } });

describe('POST /reports/{id}/data', () => {
  it('runs the report and hands out a data key and a region-bound token', async () => {
    const res = await data(byChart('bar').id);
    expect(res.status).toBe(200);
    expect(res.json.data_key).toMatch(/^eu\/org_[A-Za-z0-9]+\/exe_[A-Za-z0-9]+\/[0-9a-f]{16}$/);
    expect(res.json.data_url).toBe(`http://data.test/data/${res.json.data_key}`);
    const claims = await verifyDataToken(res.json.data_access_token, env.DATA_TOKEN_SECRET, { region: 'eu', kind: 'data' });
    expect(claims).toMatchObject({ org: org.organization.id, key: res.json.data_key });
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
    expect(claims.exp * 1000).toBeLessThanOrEqual(Date.now() + 10 * 60_000);
    const [stored] = await db().select().from(results).where(eq(results.data_key, res.json.data_key));
    expect(stored!.row_count).toBeGreaterThanOrEqual(2);
    expect(stored!.fields.map((f) => f.name)).toEqual(['country', 'revenue_eur']);
    expect(stored!.fields[1]).toMatchObject({ data_type: 'Float', group_by: false });
    expect(stored!.fields[0]).toMatchObject({ data_type: 'String', group_by: true, human_name: 'Country' });
  });

  it('reuses a fresh result for the same parameters', async () => {
    const a = await data(byChart('pie').id);
    const b = await data(byChart('pie').id);
    expect(b.json.execution_id).toBe(a.json.execution_id);
    const c = await data(byChart('pie').id, countryFilter('DE'));
    expect(c.json.execution_id).not.toBe(a.json.execution_id);
  });

  it('applies the dropdown filter through bound parameters', async () => {
    const all = await data(byChart('bar').id);
    const one = await data(byChart('bar').id, countryFilter('FR'));
    const rows = async (k: string) => (await db().select().from(results).where(eq(results.data_key, k)))[0]!.row_count;
    expect(await rows(one.json.data_key)).toBe(1);
    expect(await rows(all.json.data_key)).toBeGreaterThan(1);
  });

  it('treats injection attempts as plain values', async () => {
    for (const evil of ["FR' OR '1'='1", "FR'); DROP TABLE orders; --", 'FR\\']) {
      const res = await data(byChart('bar').id, countryFilter(evil));
      expect(res.status, evil).toBe(204);
    }
    const still = await data(byChart('table').id);
    expect(still.status).toBe(200);
  });

  it('applies the date range filter with an exclusive end', async () => {
    const range = { parameters: { filters: [{ variable_name: 'order_date', selected_values: ['2026-01-01', '2026-01-31'] }] } };
    const res = await data(byChart('number').id, range);
    expect(res.status).toBe(200);
    const [exe] = await db().select().from(executions).where(eq(executions.id, res.json.execution_id));
    expect(exe!.execution_status).toBe('success');
  });

  it('422 with a pointer for a bad filter value', async () => {
    const res = await data(byChart('number').id, { parameters: { filters: [{ variable_name: 'order_date', selected_values: ['yesterday', 'today'] }] } });
    expect(res.status).toBe(422);
    expect(res.json.errors[0]).toMatchObject({ code: 'invalid_attribute', source: { pointer: '/parameters/filters/0/selected_values' } });
  });

  it('422 for unknown members and a bad aggregation', async () => {
    const res = await data(byChart('number').id, { parameters: { aggregation: 'fortnight' }, colour: 'red' });
    expect(res.status).toBe(422);
    expect(res.json.errors.length).toBe(2);
    expect(res.json.errors.map((e: any) => e.code).sort()).toEqual(['invalid_attribute', 'unknown_attribute']);
  });

  it('400 for malformed JSON and 415 for a wrong media type', async () => {
    const bad = await call(`/reports/${byChart('number').id}/data`, { key, method: 'POST', rawBody: '{"parameters": ' });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].code).toBe('malformed_json');
    const type = await call(`/reports/${byChart('number').id}/data`, { key, method: 'POST', rawBody: 'x=1', contentType: 'text/plain' });
    expect(type.status, JSON.stringify(type.json)).toBe(415);
  });

  it("a broken SQL query is the user's error: 422 query_error, stored as such", async () => {
    const id = await sampleReport('broken', 'SELEC 1 FROM nowhere');
    const res = await data(id);
    expect(res.status).toBe(422);
    expect(res.json.errors[0].code).toBe('query_error');
    expect(res.json.errors[0].detail).toMatch(/syntax error/);
    const [exe] = await db()
      .select()
      .from(executions)
      .where(and(eq(executions.report_id, id), eq(executions.organization_id, org.organization.id)));
    expect(exe!.execution_status).toBe('query_error');
  });

  it("the sample datasource cannot read Cairn's own tables", async () => {
    const id = await sampleReport('snoop', 'SELECT secret_hash FROM public.api_keys');
    const res = await data(id);
    expect(res.status).toBe(422);
    expect(res.json.errors[0].detail).toMatch(/permission denied/);
  });

  it('csv and xlsx hand out a token carrying the format (the files: dashboard-data/report-formats.test.ts)', async () => {
    const res = await data(byChart('table').id, { data_format: 'csv' });
    expect(res.status).toBe(200);
    const claims = await verifyDataToken(res.json.data_access_token, env.DATA_TOKEN_SECRET, { region: 'eu', kind: 'data' });
    expect(claims.format).toBe('csv');
  });
});
