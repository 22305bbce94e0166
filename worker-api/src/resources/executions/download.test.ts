/**
 * GET /executions/{id}/data?data_format=csv|xlsx (issue 15): the report editor downloads the whole
 * result of SQL it has not saved. The token opens the result as a file on the data server, with the
 * export writers of report downloads; who may read the execution may download it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { reports } from '@cairn/db';
import { call, db, makeKey, makeOrg, makeRawKey, makeUser } from '../../../test/fixtures.ts';
import { roomForDatasources } from '../../../test/engine-fixtures.ts';
import { dashboardWith, dataServer, readZip } from '../../../test/dashboard-data-helpers.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
const dec = new TextDecoder();
const SQL = "SELECT 'DE' AS country, 1234.5::float8 AS revenue UNION ALL SELECT 'say \"x\", ok', -0.25 ORDER BY 1";

async function waitFor(id: string, as: { key?: string; session?: string } = { key }) {
  const until = Date.now() + 20_000;
  for (;;) {
    const res = await call(`/executions/${id}`, as);
    if (!['starting', 'running', 'waiting', 'scheduled'].includes(res.json.execution_status) || Date.now() > until) return res.json;
    await new Promise((r) => setTimeout(r, 100));
  }
}
async function adHoc(sqlText: string, as: { key?: string; session?: string } = { key }) {
  const res = await call(`/datasources/${org.sampleDatasource.id}/executions`, { ...as, method: 'POST', body: { sql_query: sqlText } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  expect((await waitFor(res.json.execution_id, as)).execution_status).toBe('success');
  return res.json.execution_id as string;
}
const handle = (id: string, format: string | null, as: { key?: string; session?: string } = { key }) =>
  call(`/executions/${id}/data${format === null ? '' : `?data_format=${format}`}`, as);
const fetchFile = (h: { data_key: string; data_access_token: string }) =>
  dataServer(`/data/${h.data_key}`, { headers: { authorization: `Data ${h.data_access_token}` } });

beforeAll(async () => {
  org = await makeOrg('executions-download');
  key = await makeKey(org.organization.id);
  await roomForDatasources(org.organization.id);
});

describe('GET /executions/{id}/data with data_format', () => {
  it('csv: the whole result as a CSV file named "Query results"', async () => {
    const id = await adHoc(SQL);
    const res = await handle(id, 'csv');
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const file = await fetchFile(res.json);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(file.headers.get('content-disposition')).toContain('Query%20results.csv');
    expect(dec.decode(new Uint8Array(await file.arrayBuffer()))).toBe('country,revenue\r\nDE,1234.5\r\n"say ""x"", ok",-0.25\r\n');
  });

  it('xlsx: a workbook; json (and no data_format) stays the plain rows', async () => {
    const id = await adHoc(SQL);
    const x = await fetchFile((await handle(id, 'xlsx')).json);
    expect(x.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const files = await readZip(new Uint8Array(await x.arrayBuffer()));
    expect(dec.decode(files.find((f) => f.name === 'xl/worksheets/sheet1.xml')!.data)).toContain('<t>DE</t>');
    for (const format of ['json', null]) {
      const plain = await fetchFile((await handle(id, format)).json);
      expect(plain.headers.get('content-disposition')).toBeNull();
      expect(((await plain.json()) as { rows: unknown[][] }).rows).toEqual([
        ['DE', 1234.5],
        ['say "x", ok', -0.25],
      ]);
    }
  });

  it('a big result comes whole, not only a first page', async () => {
    const id = await adHoc('SELECT g AS n FROM generate_series(1, 5000) g');
    const text = dec.decode(new Uint8Array(await (await fetchFile((await handle(id, 'csv')).json)).arrayBuffer()));
    const lines = text.trim().split('\r\n');
    expect(lines).toHaveLength(5001);
    expect(lines.at(-1)).toBe('5000');
  });

  it('refuses another format with 422 pointing at the parameter; an empty result is 204', async () => {
    const id = await adHoc(SQL);
    for (const bad of ['pdf', 'CSV', '']) {
      const res = await handle(id, bad);
      expect(res.status, bad).toBe(422);
      expect(res.json.errors[0]).toMatchObject({ code: 'invalid_attribute', source: { parameter: 'data_format' } });
    }
    expect((await handle(await adHoc('SELECT 1 AS n WHERE false'), 'csv')).status).toBe(204);
  });

  it("a report's run is named after the report and honours its data_download_enabled", async () => {
    const d = await dashboardWith(org.organization.id, org.sampleDatasource.id, 'Downloads', [
      { name: 'Revenue by country', sql: `${SQL} -- the report's own` },
    ]);
    const reportId = d.reportIds[0]!;
    const ran = await call(`/reports/${reportId}/data`, { key, method: 'POST', body: {} });
    expect(ran.status).toBe(200);
    const file = await fetchFile((await handle(ran.json.execution_id, 'csv')).json);
    expect(file.headers.get('content-disposition')).toContain('Revenue%20by%20country.csv');
    await db().update(reports).set({ data_download_enabled: false }).where(eq(reports.id, reportId));
    expect((await handle(ran.json.execution_id, 'csv')).status).toBe(403);
    expect((await handle(ran.json.execution_id, 'json')).status).toBe(200);
  });

  it('permissions as for reading the execution: another organization, a viewer and a key restricted elsewhere get 404', async () => {
    const analyst = await makeUser(org.organization.id, 'analyst');
    const id = await adHoc(SQL, { session: analyst.session });
    expect((await handle(id, 'csv', { session: analyst.session })).status).toBe(200);
    const viewer = await makeUser(org.organization.id, 'viewer');
    expect((await handle(id, 'csv', { session: viewer.session })).status).toBe(404);
    const restricted = await makeRawKey(org.organization.id, [{ permission: 'manage_datasources', resources: [{ type: 'datasources', id: 'dsr_other' }] }]);
    expect((await handle(id, 'csv', { key: restricted })).status).toBe(404);
    const other = await makeOrg('executions-download-other');
    expect((await handle(id, 'csv', { key: await makeKey(other.organization.id) })).status).toBe(404);
    expect((await handle(id, 'csv', {})).status).toBe(401);
  });
});
