/**
 * Dashboard thumbnails (D62): a view writes last_accessed_at once an hour at most; the cron queues a
 * dashboard viewed in the last 24 h once a day (never one unviewed, switched off or drawn today); the
 * consumer retries while no renderer answers; the image is served by an authenticated route from the
 * region's bucket; sharing publishes. The real render (Chromium through the renderer service) is
 * covered by e2e/jobs-truth.stack.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createExecutionContext, createMessageBatch, env, getQueueResult } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { dashboards } from '@cairn/db';
import worker from '../../index.ts';
import type { Env } from '../../env.ts';
import type { JobMessage } from '../../jobs/messages.ts';
import { claimDueThumbnails, sweepOrphanThumbnails } from './thumbnails.ts';
import { thumbnailObjectKey } from './thumbnail-url.ts';
import { call, db, jsonApi, makeKey, makeOrg } from '../../../test/fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import postgres from 'postgres';

let org: CreateOrganizationResult;
let key: string;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

async function newDashboard(name: string): Promise<string> {
  const res = await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name } }, key);
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data.id as string;
}
const row = async (id: string) => (await db().select().from(dashboards).where(eq(dashboards.id, id)))[0]!;
const region = () => (env as unknown as Env).REGION;

let sql: postgres.Sql | null = null;
/** One client for the file, left open (the test pool cannot close connections: CAIRN_KEEP_CONNECTIONS). */
async function claim(now = new Date()): Promise<string[]> {
  sql ??= postgres((env as unknown as Env).HYPERDRIVE.connectionString, { max: 1, fetch_types: false, onnotice: () => {} });
  return (await claimDueThumbnails(sql, region(), now, 1000)).map((m) => (m as { dashboardId: string }).dashboardId);
}

beforeAll(async () => {
  org = await makeOrg('thumbnails');
  key = await makeKey(org.organization.id);
});

describe('last_accessed_at', () => {
  it('is written when the dashboard is read, and not again within the hour', async () => {
    const id = await newDashboard('Viewed');
    expect((await row(id)).last_accessed_at).toBeNull();
    expect((await call(`/dashboards/${id}`, { key })).status).toBe(200);
    const first = (await row(id)).last_accessed_at;
    expect(first).toBeInstanceOf(Date);
    expect(Date.now() - first!.getTime()).toBeLessThan(60_000);
    expect((await call(`/dashboards/${id}`, { key })).status).toBe(200);
    expect((await row(id)).last_accessed_at!.getTime()).toBe(first!.getTime());
  });
});

describe('the cron queues due thumbnails', () => {
  it('takes dashboards viewed in the last day, once a day; not unviewed, switched-off or freshly drawn ones', async () => {
    const viewed = await newDashboard('Due');
    const unviewed = await newDashboard('Never opened');
    const off = await newDashboard('Switched off');
    const fresh = await newDashboard('Drawn an hour ago');
    const longAgo = await newDashboard('Viewed two days ago');
    const now = new Date();
    await db()
      .update(dashboards)
      .set({ last_accessed_at: new Date(now.getTime() - 3_600_000) })
      .where(eq(dashboards.id, viewed));
    await db().update(dashboards).set({ last_accessed_at: now, thumbnail_enabled: false }).where(eq(dashboards.id, off));
    await db()
      .update(dashboards)
      .set({ last_accessed_at: now, thumbnail_image_url: thumbnailObjectKey(fresh), thumbnail_created_at: new Date(now.getTime() - 3_600_000) })
      .where(eq(dashboards.id, fresh));
    await db()
      .update(dashboards)
      .set({ last_accessed_at: new Date(now.getTime() - 2 * 86_400_000) })
      .where(eq(dashboards.id, longAgo));

    const first = await claim(now);
    expect(first).toContain(viewed);
    for (const id of [unviewed, off, fresh, longAgo]) expect(first).not.toContain(id);
    expect((await row(viewed)).thumbnail_queued_at).toBeInstanceOf(Date);
    // Claimed once: the next tick (and the other region's cron) finds nothing of it.
    expect(await claim(new Date(now.getTime() + 60_000))).not.toContain(viewed);
    // A day later, still viewed, it is due again.
    await db()
      .update(dashboards)
      .set({ last_accessed_at: new Date(now.getTime() + 86_400_000) })
      .where(eq(dashboards.id, viewed));
    expect(await claim(new Date(now.getTime() + 86_400_000 + 1000))).toContain(viewed);
  });
});

describe('the consumer', () => {
  it('retries a thumbnail while no renderer answers, and skips a deleted dashboard', async () => {
    const id = await newDashboard('No renderer here');
    const deliver = async (body: JobMessage) => {
      const batch = createMessageBatch<JobMessage>('cairn-jobs', [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body }]);
      const ctx = createExecutionContext();
      await worker.queue(batch, { ...(env as unknown as Env), RENDERER_URL: undefined } as Env, ctx);
      return getQueueResult(batch, ctx);
    };
    const retried = await deliver({ kind: 'thumbnail', organizationId: org.organization.id, dashboardId: id });
    expect(retried.retryMessages).toHaveLength(1);
    expect((await row(id)).thumbnail_created_at).toBeNull();
    const gone = await deliver({ kind: 'thumbnail', organizationId: org.organization.id, dashboardId: 'dashboard_does_not_exist' });
    expect(gone.explicitAcks).toHaveLength(1);
  });
});

describe('GET /dashboards/{id}/thumbnail', () => {
  it('answers 404 before the first image, then the PNG from the bucket; thumbnail_image_url names the route', async () => {
    const id = await newDashboard('With image');
    const none = await call(`/dashboards/${id}/thumbnail`, { key });
    expect(none.status).toBe(404);
    expect(none.json.errors[0].detail).toMatch(/no thumbnail yet/);
    expect((await call(`/dashboards/${id}`, { key })).json.data.attributes.thumbnail_image_url).toBeNull();

    await (env as unknown as Env).RESULTS.put(thumbnailObjectKey(id), PNG);
    const at = new Date();
    await db()
      .update(dashboards)
      .set({ thumbnail_image_url: thumbnailObjectKey(id), thumbnail_created_at: at })
      .where(eq(dashboards.id, id));
    const attrs = (await call(`/dashboards/${id}`, { key })).json.data.attributes;
    expect(attrs.thumbnail_created_at).toBe(at.toISOString());
    const url = new URL(attrs.thumbnail_image_url);
    expect(url.pathname).toBe(`/dashboards/${id}/thumbnail`);
    const res = await SELFfetch(`${url.pathname}${url.search}`, key);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG);
    // Another organization's key sees nothing of it.
    const other = await makeOrg('thumbnails-other');
    const otherKey = await makeKey(other.organization.id);
    expect((await call(`/dashboards/${id}/thumbnail`, { key: otherKey })).status).toBe(404);
    // Without a key: 401.
    expect((await call(`/dashboards/${id}/thumbnail`)).status).toBe(401);
    // Deleting the dashboard deletes its image from the bucket.
    expect((await call(`/dashboards/${id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect(await (env as unknown as Env).RESULTS.head(thumbnailObjectKey(id))).toBeNull();
  });
});

describe('the hourly sweep of orphaned thumbnails', () => {
  it('deletes images no dashboard names (an organization deleted in the database), keeps named and fresh ones', async () => {
    const bucket = (env as unknown as Env).RESULTS;
    sql ??= postgres((env as unknown as Env).HYPERDRIVE.connectionString, { max: 1, fetch_types: false, onnotice: () => {} });
    const kept = await newDashboard('Kept image');
    await bucket.put(thumbnailObjectKey(kept), PNG);
    await db()
      .update(dashboards)
      .set({ thumbnail_image_url: thumbnailObjectKey(kept), thumbnail_created_at: new Date() })
      .where(eq(dashboards.id, kept));
    // A second organization with an imaged dashboard, then deleted the way an operator does it: in the database.
    const doomed = await makeOrg('thumbnails-doomed');
    const doomedKey = await makeKey(doomed.organization.id);
    const made = await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Doomed' } }, doomedKey);
    const gone = made.json.data.id as string;
    await bucket.put(thumbnailObjectKey(gone), PNG);
    await db()
      .update(dashboards)
      .set({ thumbnail_image_url: thumbnailObjectKey(gone), thumbnail_created_at: new Date() })
      .where(eq(dashboards.id, gone));
    await sql`delete from organizations where id = ${doomed.organization.id}`;

    // Just put: a render may not have recorded it yet, so the sweep leaves it for an hour.
    await sweepOrphanThumbnails(sql, bucket, new Date(), 5);
    expect(await bucket.head(thumbnailObjectKey(gone))).not.toBeNull();

    const later = new Date(Date.now() + 2 * 3_600_000);
    expect(await sweepOrphanThumbnails(sql, bucket, later, 5)).toBeGreaterThanOrEqual(1);
    expect(await bucket.head(thumbnailObjectKey(gone))).toBeNull();
    expect(await bucket.head(thumbnailObjectKey(kept))).not.toBeNull();
  });
});

describe('published', () => {
  it('is true while the dashboard is shared with users, false for a draft', async () => {
    const id = await newDashboard('Publish me');
    expect((await call(`/dashboards/${id}`, { key })).json.data.attributes.published).toBe(false);
    const shared = await call(`/dashboards/${id}/share`, { key, body: { share_mode: 'all_users' } });
    expect(shared.status, JSON.stringify(shared.json)).toBe(200);
    expect(shared.json.data.attributes.published).toBe(true);
    expect((await row(id)).published).toBe(true);
    const back = await call(`/dashboards/${id}/share`, { key, body: { share_mode: 'none' } });
    expect(back.json.data.attributes.published).toBe(false);
  });
});

async function SELFfetch(path: string, apiKey: string): Promise<Response> {
  const { SELF } = await import('cloudflare:test');
  return SELF.fetch(`https://api.test${path}`, { headers: { authorization: `Api ${apiKey}` } });
}
