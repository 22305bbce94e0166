import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { reports } from '@cairn/db';
import { verifyDataToken } from '@cairn/core';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { call, db, makeKey, makeOrg } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import { dashboardWith, dataServer, readZip } from '../../../test/dashboard-data-helpers.ts';

/** POST /reports/{id}/data in the download formats, followed to the file on the data server. */
let org: CreateOrganizationResult;
let key: string;
let reportId: string;
const dec = new TextDecoder();

beforeAll(async () => {
  org = await makeOrg('report-formats');
  key = await makeKey(org.organization.id);
  const d = await dashboardWith(org.organization.id, org.sampleDatasource.id, 'Formats', [
    {
      name: 'Umsätze: "EU"',
      sql: "SELECT 'DE' AS country, 1234.5::float8 AS revenue, DATE '2024-05-01' AS day UNION ALL SELECT 'say \"x\", ok', -0.25, NULL ORDER BY 1",
    },
  ]);
  reportId = d.reportIds[0]!;
});

const data = (body: unknown) => call(`/reports/${reportId}/data`, { key, method: 'POST', body });
const fetchData = (handle: { data_key: string; data_access_token: string }) =>
  dataServer(`/data/${handle.data_key}`, { headers: { authorization: `Data ${handle.data_access_token}` } });

describe('POST /reports/{id}/data with data_format csv or xlsx', () => {
  it('csv: the token carries the format, the default CSV options and the report name', async () => {
    const res = await data({ data_format: 'csv' });
    expect(res.status).toBe(200);
    const claims = await verifyDataToken(res.json.data_access_token, env.DATA_TOKEN_SECRET, { region: 'eu' });
    expect(claims).toMatchObject({
      format: 'csv',
      name: 'Umsätze: "EU"',
      csv: { column_separator: 'comma', decimal_separator: 'point', quote_style: 'necessary' },
    });
    const file = await fetchData(res.json);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(file.headers.get('content-disposition')).toContain(`filename*=UTF-8''Ums%C3%A4tze%20EU.csv`);
    expect(dec.decode(new Uint8Array(await file.arrayBuffer()))).toBe('country,revenue,day\r\nDE,1234.5,2024-05-01\r\n"say ""x"", ok",-0.25,\r\n');
  });

  it('xlsx: a workbook with the report as its sheet', async () => {
    const res = await data({ data_format: 'xlsx' });
    expect(res.status).toBe(200);
    const file = await fetchData(res.json);
    expect(file.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const files = await readZip(new Uint8Array(await file.arrayBuffer()));
    expect(dec.decode(files.find((f) => f.name === 'xl/workbook.xml')!.data)).toContain('<sheet name="Umsätze &quot;EU&quot;" sheetId="1"');
    const sheet = dec.decode(files.find((f) => f.name === 'xl/worksheets/sheet1.xml')!.data);
    expect(sheet).toContain('<c r="A2" t="inlineStr"><is><t>DE</t></is></c><c r="B2"><v>1234.5</v></c><c r="C2" s="1"><v>45413</v></c>');
  });

  it('json stays the plain result, without a file name', async () => {
    const res = await data({});
    const claims = await verifyDataToken(res.json.data_access_token, env.DATA_TOKEN_SECRET, { region: 'eu' });
    expect(claims.format).toBeUndefined();
    const file = await fetchData(res.json);
    expect(file.headers.get('content-disposition')).toBeNull();
    expect(((await file.json()) as any).rows).toEqual([
      ['DE', 1234.5, '2024-05-01'],
      ['say "x", ok', -0.25, null],
    ]);
  });

  it("403 for csv and xlsx when the report's data downloads are off; json still works", async () => {
    await db().update(reports).set({ data_download_enabled: false }).where(eq(reports.id, reportId));
    try {
      for (const data_format of ['csv', 'xlsx']) {
        const res = await data({ data_format });
        expect(res.status, data_format).toBe(403);
        expectJsonApiDocument(res.json);
        expect(res.json.errors[0].code).toBe('forbidden');
      }
      expect((await data({ data_format: 'json' })).status).toBe(200);
    } finally {
      await db().update(reports).set({ data_download_enabled: true }).where(eq(reports.id, reportId));
    }
  });

  it('204 when the result has no rows, in every format', async () => {
    const d = await dashboardWith(org.organization.id, org.sampleDatasource.id, 'Empty', [{ name: 'Nothing', sql: 'SELECT 1 AS n WHERE false' }]);
    for (const data_format of ['json', 'csv', 'xlsx']) {
      expect((await call(`/reports/${d.reportIds[0]}/data`, { key, method: 'POST', body: { data_format } })).status).toBe(204);
    }
  });
});
