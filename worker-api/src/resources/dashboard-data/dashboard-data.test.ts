import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { eq, inArray } from 'drizzle-orm';
import { reports, results } from '@cairn/db';
import { verifyProcessToken } from '@cairn/core';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { call, db, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import { dashboardWith, processDownload, readZip } from '../../../test/dashboard-data-helpers.ts';

let org: CreateOrganizationResult;
let key: string;
const dec = new TextDecoder();

beforeAll(async () => {
  org = await makeOrg('dashboard-data');
  key = await makeKey(org.organization.id);
});

const data = (id: string, body?: unknown, auth: { key?: string; session?: string } = { key }) =>
  call(`/dashboards/${id}/data`, { ...auth, method: 'POST', body });
const claimsOf = (token: string) => verifyProcessToken(token, env.DATA_TOKEN_SECRET, { region: 'eu' });
const ds = () => org.sampleDatasource.id;

describe('POST /dashboards/{id}/data', () => {
  it('runs every report and hands out a data process token for /process, reports in layout order', async () => {
    const res = await data(org.sampleDashboard.id, { data_format: 'xlsx' });
    expect(res.status).toBe(200);
    expect(res.json.data_url).toBe('http://data.test/process');
    const claims = await claimsOf(res.json.data_process_token);
    expect(claims).toMatchObject({ kind: 'process', org: org.organization.id, region: 'eu', format: 'xlsx', name: org.sampleDashboard.name });
    expect(claims.csv).toBeUndefined();
    expect(claims.exp * 1000).toBeLessThanOrEqual(Date.now() + 5 * 60_000 + 1000);
    const tiles = [...org.sampleDashboard.layout].sort((a, b) => a.row - b.row || a.column - b.column).map((t) => t.id);
    expect(claims.items.map((i) => i.id)).toEqual(tiles);
    expect(res.json.reports.map((r: any) => r.report_id)).toEqual(tiles);
    expect(res.json.skipped).toEqual([]);
    // every key names a stored result of this organization with the reported row count
    const stored = await db()
      .select()
      .from(results)
      .where(
        inArray(
          results.data_key,
          claims.items.map((i) => i.key),
        ),
      );
    for (const r of res.json.reports) {
      const s = stored.find((x) => x.data_key === r.data_key)!;
      expect(s.organization_id).toBe(org.organization.id);
      expect(s.row_count).toBe(r.row_count);
    }
  });

  it('the token opens a workbook with a sheet per report on the data server', async () => {
    const res = await data(org.sampleDashboard.id, { data_format: 'xlsx' });
    const file = await processDownload(res.json.data_process_token);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toContain(`${org.sampleDashboard.name}.xlsx`);
    const files = await readZip(new Uint8Array(await file.arrayBuffer()));
    const wb = dec.decode(files.find((f) => f.name === 'xl/workbook.xml')!.data);
    const names = [...wb.matchAll(/<sheet name="([^"]+)"/g)].map((m) => m[1]);
    expect(names).toEqual(res.json.reports.map((r: any) => r.name));
    expect(files.filter((f) => f.name.startsWith('xl/worksheets/')).length).toBe(res.json.reports.length);
  });

  it("csv_zip with the CSV options: the files hold the reports' rows", async () => {
    const d = await dashboardWith(org.organization.id, ds(), 'CSV dash', [
      { name: 'Countries', sql: "SELECT name AS country, 1.5::float8 AS share FROM countries WHERE code IN ('DE', 'FR') ORDER BY 1" },
      { name: 'Constant', sql: "SELECT 'a;b' AS label, 2 AS n" },
    ]);
    const res = await data(d.id, { data_format: 'csv_zip', csv_column_separator: 'semicolon', csv_decimal_separator: 'comma', csv_quote_style: 'necessary' });
    expect(res.status).toBe(200);
    const claims = await claimsOf(res.json.data_process_token);
    expect(claims.csv).toEqual({ column_separator: 'semicolon', decimal_separator: 'comma', quote_style: 'necessary' });
    // the layout puts the second report first
    expect(claims.items.map((i) => i.name)).toEqual(['Constant', 'Countries']);
    const zip = await readZip(new Uint8Array(await (await processDownload(res.json.data_process_token)).arrayBuffer()));
    expect(zip.map((f) => f.name)).toEqual(['Constant.csv', 'Countries.csv']);
    expect(dec.decode(zip[0]!.data)).toBe('label;n\r\n"a;b";2\r\n');
    expect(dec.decode(zip[1]!.data)).toMatch(/^country;share\r\n[^\r\n]+;1,5\r\n[^\r\n]+;1,5\r\n$/);
  });

  it('json: one document keyed by report id', async () => {
    const d = await dashboardWith(org.organization.id, ds(), 'JSON dash', [{ name: 'One', sql: 'SELECT 1 AS n' }]);
    const res = await data(d.id, {});
    const claims = await claimsOf(res.json.data_process_token);
    expect(claims.format).toBe('json');
    const body = (await (await processDownload(res.json.data_process_token)).json()) as any;
    expect(body[d.reportIds[0]!]).toMatchObject({ name: 'One', rows: [[1]] });
  });

  it('leaves out reports whose downloads are off, and answers 204 when none is left', async () => {
    const d = await dashboardWith(org.organization.id, ds(), 'Partly closed', [
      { name: 'Open', sql: 'SELECT 1 AS n' },
      { name: 'Closed', sql: 'SELECT 2 AS n', data_download_enabled: false },
    ]);
    const res = await data(d.id, { data_format: 'csv_zip' });
    expect(res.status).toBe(200);
    const claims = await claimsOf(res.json.data_process_token);
    expect(claims.items.map((i) => i.name)).toEqual(['Open']);
    expect(res.json.skipped).toEqual([{ report_id: d.reportIds[1], name: 'Closed', reason: 'data_download_disabled' }]);
    await db().update(reports).set({ data_download_enabled: false }).where(eq(reports.id, d.reportIds[0]!));
    const none = await data(d.id, { data_format: 'csv_zip' });
    expect(none.status).toBe(204);
  });

  it('204 when no report has rows; an empty report beside others is kept (a header-only file)', async () => {
    const empty = await dashboardWith(org.organization.id, ds(), 'Empty', [{ name: 'Nothing', sql: 'SELECT 1 AS n WHERE false' }]);
    expect((await data(empty.id)).status).toBe(204);
    expect((await call(`/dashboards/${(await dashboardWith(org.organization.id, ds(), 'No reports', [])).id}/data`, { key, method: 'POST' })).status).toBe(204);
    const mixed = await dashboardWith(org.organization.id, ds(), 'Mixed', [
      { name: 'Nothing', sql: 'SELECT 1 AS n WHERE false' },
      { name: 'Something', sql: 'SELECT 1 AS n' },
    ]);
    const res = await data(mixed.id, { data_format: 'csv_zip' });
    expect(res.json.reports.map((r: any) => [r.name, r.row_count])).toEqual([
      ['Something', 1],
      ['Nothing', 0],
    ]);
    const zip = await readZip(new Uint8Array(await (await processDownload(res.json.data_process_token)).arrayBuffer()));
    expect(dec.decode(zip[1]!.data)).toBe('n\r\n');
  });

  it('a failing report is skipped with its error; all failing is a 422', async () => {
    const d = await dashboardWith(org.organization.id, ds(), 'Broken', [
      { name: 'Fine', sql: 'SELECT 1 AS n' },
      { name: 'Typo', sql: 'SELEC 1' },
    ]);
    const res = await data(d.id);
    expect(res.status).toBe(200);
    expect(res.json.skipped).toMatchObject([{ name: 'Typo', reason: 'query_error', detail: expect.stringMatching(/syntax error/) }]);
    const bad = await dashboardWith(org.organization.id, ds(), 'All broken', [{ name: 'Typo', sql: 'SELEC 1' }]);
    const res2 = await data(bad.id);
    expect(res2.status).toBe(422);
    expectJsonApiDocument(res2.json);
    expect(res2.json.errors[0].code).toBe('query_error');
  });

  it('applies the parameters to every report (bound, never spliced)', async () => {
    const country = (v: string) => ({ parameters: { filters: [{ variable_name: 'country', selected_values: [v] }] } });
    const fr = await data(org.sampleDashboard.id, country('FR'));
    expect(fr.status).toBe(200);
    expect(fr.json.reports.find((r: any) => r.name === 'Revenue by country').row_count).toBe(1);
    const evil = await data(org.sampleDashboard.id, country("FR' OR '1'='1"));
    const byCountry = evil.status === 204 ? undefined : evil.json.reports.find((r: any) => r.name === 'Revenue by country');
    expect(byCountry?.row_count ?? 0).toBe(0);
  });

  it('422 for comma as both separators, unknown members and bad values; 415 for a wrong media type', async () => {
    const both = await data(org.sampleDashboard.id, { data_format: 'csv_zip', csv_decimal_separator: 'comma' });
    expect(both.status).toBe(422);
    expectJsonApiDocument(both.json);
    expect(both.json.errors[0]).toMatchObject({ code: 'invalid_attribute', source: { pointer: '/csv_decimal_separator' } });
    const cases: [unknown, string][] = [
      [{ data_format: 'csv' }, '/data_format'],
      [{ csv_column_separator: 'pipe' }, '/csv_column_separator'],
      [{ csv_quote_style: 'never' }, '/csv_quote_style'],
      [{ parameters: { aggregation: 'fortnight' } }, '/parameters/aggregation'],
    ];
    for (const [body, pointer] of cases) {
      const res = await data(org.sampleDashboard.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expectJsonApiDocument(res.json);
      expect(res.json.errors[0].source.pointer).toBe(pointer);
    }
    const unknown = await data(org.sampleDashboard.id, { colour: 'red' });
    expect(unknown.status).toBe(422);
    expect(unknown.json.errors[0].code).toBe('unknown_attribute');
    const type = await call(`/dashboards/${org.sampleDashboard.id}/data`, { key, method: 'POST', rawBody: 'x=1', contentType: 'text/plain' });
    expect(type.status).toBe(415);
  });

  it("permissions: View Dashboards on the dashboard; other organizations' and invisible dashboards are 404", async () => {
    const viewOnly = await makeKey(org.organization.id, only('view_dashboards'));
    expect((await data(org.sampleDashboard.id, {}, { key: viewOnly })).status).toBe(200);
    const noView = await makeKey(org.organization.id, only('view_users'));
    const denied = await data(org.sampleDashboard.id, {}, { key: noView });
    expect(denied.status).toBe(403);
    expectJsonApiDocument(denied.json);
    const elsewhere = await makeOrg('dashboard-data-other');
    const otherKey = await makeKey(elsewhere.organization.id);
    expect((await data(org.sampleDashboard.id, {}, { key: otherKey })).status).toBe(404);
    const sibling = await dashboardWith(org.organization.id, ds(), 'Sibling', []);
    const restricted = await makeKey(org.organization.id, [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: sibling.id }] }]);
    expect((await data(org.sampleDashboard.id, {}, { key: restricted })).status).toBe(404);
    expect((await data(sibling.id, {}, { key: restricted })).status).toBe(204);
    // a viewer sees the shared sample dashboard, not a private one
    const viewer = await makeUser(org.organization.id, 'viewer');
    expect((await data(org.sampleDashboard.id, {}, { session: viewer.session })).status).toBe(200);
    const priv = await dashboardWith(org.organization.id, ds(), 'Private', [{ name: 'One', sql: 'SELECT 1 AS n' }]);
    expect((await data(priv.id, {}, { session: viewer.session })).status).toBe(404);
    expect((await data('dsh_doesnotexist000000', {})).status).toBe(404);
  });
});
