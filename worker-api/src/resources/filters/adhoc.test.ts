/**
 * Ad hoc filters (issue 15): a variable no filter defines is a multi-select text filter whose selected
 * values apply as bound text values — in ad hoc executions and in report data calls; a bad value shape
 * is a 422 naming the value with a pointer into parameters.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { executions, reports, results } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg } from '../../../test/fixtures.ts';
import { SELF } from 'cloudflare:test';
import { roomForDatasources } from '../../../test/engine-fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
const LETTERS = "select v from (values ('a'), ('b'), ('c'), ('it''s')) t(v) where {v=letters} order by v";
const pick = (values: unknown) => ({ filters: [{ variable_name: 'letters', selected_values: values }] });

beforeAll(async () => {
  org = await makeOrg('adhoc-filters');
  key = await makeKey(org.organization.id);
  await roomForDatasources(org.organization.id);
});

async function execute(parameters?: unknown) {
  const res = await call(`/datasources/${org.sampleDatasource.id}/executions`, {
    key,
    method: 'POST',
    body: { sql_query: LETTERS, ...(parameters ? { parameters } : {}) },
  });
  if (res.status !== 201) return res;
  const until = Date.now() + 20_000;
  for (;;) {
    const got = await call(`/executions/${res.json.execution_id}`, { key });
    if (!['starting', 'running', 'waiting', 'scheduled'].includes(got.json.execution_status) || Date.now() > until) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const rowsOf = async (dataKey: string) => (await db().select().from(results).where(eq(results.data_key, dataKey)))[0]!.row_count;

describe('ad hoc filters', () => {
  it('an execution applies the selected values of an undefined variable as bound text values', async () => {
    const all = await execute();
    expect(all.json).toMatchObject({ execution_status: 'success', result_rows: 4 });
    const two = await execute(pick(['a', 'b']));
    expect(two.json).toMatchObject({ execution_status: 'success', result_rows: 2 });
    // A quote in a value is a value, not SQL.
    const quoted = await execute(pick(["it's"]));
    expect(quoted.json).toMatchObject({ execution_status: 'success', result_rows: 1 });
    const evil = await execute(pick(["a') or ('1'='1"]));
    expect(evil.json).toMatchObject({ execution_status: 'success', result_rows: 0 });
    const [row] = await db().select().from(executions).where(eq(executions.id, two.json.execution_id));
    expect(row!.sql_query).toContain('{v=letters}');
    // An empty selection is unset: every row.
    expect((await execute(pick([]))).json).toMatchObject({ execution_status: 'success', result_rows: 4 });
  });

  it('a report data call applies them too (the report was stored without creating the filter)', async () => {
    const id = newId('report');
    await db().insert(reports).values({
      id,
      organization_id: org.organization.id,
      dashboard_id: org.sampleDashboard.id,
      datasource_id: org.sampleDatasource.id,
      name: 'Letters',
      sql_query: LETTERS,
    });
    const data = (parameters?: unknown) => call(`/reports/${id}/data`, { key, method: 'POST', body: parameters ? { parameters } : {} });
    const all = await data();
    expect(all.status, JSON.stringify(all.json)).toBe(200);
    expect(await rowsOf(all.json.data_key)).toBe(4);
    const two = await data(pick(['a', 'c']));
    expect(two.status, JSON.stringify(two.json)).toBe(200);
    expect(await rowsOf(two.json.data_key)).toBe(2);
    expect(two.json.execution_id).not.toBe(all.json.execution_id);
    // Numbers are read as their text.
    const none = await data(pick([1]));
    expect(none.status).toBe(204);
  });

  it('a bad value shape is a 422 with a pointer to the value', async () => {
    const obj = await execute(pick([{ a: 1 }]));
    expect(obj.status).toBe(422);
    expect(obj.json.errors[0]).toMatchObject({ status: '422', code: 'invalid_attribute', source: { pointer: '/parameters/filters/0/selected_values/0' } });
    const nested = await execute(pick(['a', ['b']]));
    expect(nested.status).toBe(422);
    expect(nested.json.errors[0].source.pointer).toBe('/parameters/filters/0/selected_values/1');
    const nul = await execute(pick(['a\u0000']));
    expect(nul.status).toBe(422);
    expect(nul.json.errors[0].source.pointer).toBe('/parameters/filters/0/selected_values/0');
  });

  it("a sharing link viewer cannot set an ad hoc filter (only the dashboard's filters)", async () => {
    const id = newId('report');
    await db().insert(reports).values({
      id,
      organization_id: org.organization.id,
      dashboard_id: org.sampleDashboard.id,
      datasource_id: org.sampleDatasource.id,
      name: 'Letters on a link',
      sql_query: LETTERS,
    });
    const link = await jsonApi(
      '/dashboard_sharing_links',
      'POST',
      {
        type: 'dashboard_sharing_links',
        attributes: { name: 'Public', parameters_enabled: true, filter_bar_enabled: true },
        relationships: { dashboard: { data: { type: 'dashboards', id: org.sampleDashboard.id } } },
      },
      key,
    );
    expect(link.status).toBe(201);
    const token = link.json.data.attributes.token;
    const until = Date.now() + 30_000;
    let mine: any;
    for (;;) {
      const res = await SELF.fetch(`https://api.test/public/links/${token}/status`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'cf-connecting-ip': '198.51.100.20' },
        body: JSON.stringify({ parameters: pick(['a']) }),
      });
      expect(res.status).toBe(200);
      mine = ((await res.json()) as any).reports.find((r: any) => r.report_id === id);
      if ((!mine.running && mine.result_status !== 'running') || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(mine.row_count).toBe(4);
  });
});
