import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { makeDataKey, newId, randomString } from '@cairn/core';
import { exportFileChunks, exportJobs, organizations, results } from '@cairn/db';
import { dataToken, db, errorOf, field, get, makeOrg, post, processToken, storeResult } from './fixtures.ts';

/**
 * The data server (the test worker serves region EU) opens only its own region's data: a key under
 * `us/` is refused whatever the token says, and so is a result of an organization of the other
 * region, even under an `eu/` key with a token this server signed.
 */
let org: string;
let usOrg: string;
let usKey: string;
let usResultKey: string;
let usJob: string;

async function expectWrongRegion(res: Response, server = 'https://data-us.cairn.example') {
  expect(res.status).toBe(403);
  const err = (await errorOf(res)) as Awaited<ReturnType<typeof errorOf>> & { meta: Record<string, unknown> };
  expect(err.code).toBe('wrong_region');
  expect(err.detail).toContain(server);
  expect(err.meta).toMatchObject({ region: 'us', data_base_url: 'https://data-us.cairn.example', api_base_url: 'https://api-us.cairn.example' });
}

beforeAll(async () => {
  org = await makeOrg('regions');
  usOrg = await makeOrg('regions us');
  // A result stored under a us/ key (as the US API server would store it) in an EU organization.
  const stored = await storeResult(org, [field(0, 'x', 'Integer')], [[[1]]]);
  usKey = stored.key.replace(/^eu\//, 'us/');
  await db.update(results).set({ data_key: usKey }).where(eq(results.data_key, stored.key));
  // A result of an organization that lives in the US, under an eu/ key.
  usResultKey = (await storeResult(usOrg, [field(0, 'x', 'Integer')], [[[2]]])).key;
  usJob = newId('export_job');
  await db.insert(exportJobs).values({
    id: usJob,
    organization_id: usOrg,
    kind: 'dashboard_pdf',
    job_status: 'success',
    file_key: `export/${usJob}`,
    file_name: 'a.pdf',
    content_type: 'application/pdf',
    file_size: 2,
    expires_at: new Date(Date.now() + 3_600_000),
  });
  await db.insert(exportFileChunks).values({ job_id: usJob, organization_id: usOrg, seq: 0, data: new TextEncoder().encode('%P') });
  await db.update(organizations).set({ region: 'us' }).where(eq(organizations.id, usOrg));
});

describe('regions on the data server', () => {
  it('a us/ key is refused even with a valid EU token for it', async () => {
    await expectWrongRegion(await get(`/data/${usKey}`, `Data ${await dataToken({ org, key: usKey })}`));
    await expectWrongRegion(await get(`/schema/${usKey}`, `Data ${await dataToken({ org, key: usKey, kind: 'schema' })}`));
    const body = JSON.stringify({ data_access_token: await processToken({ org, items: [{ key: usKey, name: 'x', id: 'rpt_x' }] }) });
    await expectWrongRegion(await post('/process', body, 'application/json'));
  });

  it("a result of the other region's organization is refused under an eu/ key", async () => {
    await expectWrongRegion(await get(`/data/${usResultKey}`, `Data ${await dataToken({ org: usOrg, key: usResultKey })}`));
    const body = JSON.stringify({ data_access_token: await processToken({ org: usOrg, items: [{ key: usResultKey, name: 'x', id: 'rpt_x' }] }) });
    await expectWrongRegion(await post('/process', body, 'application/json'));
    await expectWrongRegion(await get(`/exports/${usJob}?token=${await dataToken({ org: usOrg, key: `export/${usJob}` })}`));
  });

  it('an unknown us/ key of a token for another key is still only invalid', async () => {
    const other = makeDataKey(
      'us',
      org,
      newId('execution'),
      randomString(16)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, 'a'),
    );
    const res = await get(`/data/${other}`, `Data ${await dataToken({ org, key: usKey })}`);
    expect(res.status).toBe(401);
    expect((await errorOf(res)).code).toBe('invalid_data_token');
  });
});
