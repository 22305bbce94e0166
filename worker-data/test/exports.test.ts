import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@cairn/core';
import { exportObjectKey } from '@cairn/core/results/object';
import { exportJobs } from '@cairn/db';
import { dataToken, db, errorOf, get, makeOrg } from './fixtures.ts';

let org: string;
let other: string;
let job: string;
const PDF = new TextEncoder().encode('%PDF-1.7\nhello\n%%EOF\n');

/** A finished export job whose file is one object of the region's bucket (D55, D61). */
async function storeJob(organization: string, values: Partial<typeof exportJobs.$inferInsert> = {}) {
  const id = newId('export_job');
  await db.insert(exportJobs).values({
    id,
    organization_id: organization,
    kind: 'dashboard_pdf',
    job_status: 'success',
    file_key: `export/${id}`,
    file_name: 'Überblick.pdf',
    content_type: 'application/pdf',
    file_size: PDF.length,
    expires_at: new Date(Date.now() + 3_600_000),
    ...values,
  });
  await env.RESULTS.put(exportObjectKey(id), PDF);
  return id;
}

beforeAll(async () => {
  [org, other] = await Promise.all([makeOrg('exports'), makeOrg('exports other')]);
  job = await storeJob(org);
});

describe('GET /exports/{job}', () => {
  it('streams the file with its name and type, for the token in the query or the header', async () => {
    const token = await dataToken({ org, key: `export/${job}` });
    for (const res of [await get(`/exports/${job}?token=${encodeURIComponent(token)}`), await get(`/exports/${job}`, `Data ${token}`)]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toContain(`filename*=UTF-8''%C3%9Cberblick.pdf`);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(PDF);
    }
  });

  it('refuses a missing, forged or foreign token, and a token for another file', async () => {
    expect((await get(`/exports/${job}`)).status).toBe(401);
    expect((await get(`/exports/${job}?token=${await dataToken({ org, key: `export/${job}` }, 'wrong-secret')}`)).status).toBe(401);
    const second = await storeJob(org);
    const forSecond = await dataToken({ org, key: `export/${second}` });
    const res = await get(`/exports/${job}?token=${forSecond}`);
    expect(res.status).toBe(401);
    expect((await errorOf(res)).code).toBe('invalid_data_token');
    // A token of another organization for this job's key finds nothing.
    expect((await get(`/exports/${job}?token=${await dataToken({ org: other, key: `export/${job}` })}`)).status).toBe(404);
    expect((await get('/exports/..%2Fx?token=x')).status).toBe(400);
  });

  it('404 once the file expired or while the job is not a success', async () => {
    const expired = await storeJob(org, { expires_at: new Date(Date.now() - 1000) });
    const running = await storeJob(org, { job_status: 'running' });
    for (const id of [expired, running]) {
      const res = await get(`/exports/${id}?token=${await dataToken({ org, key: `export/${id}` })}`);
      expect(res.status).toBe(404);
    }
  });
});
