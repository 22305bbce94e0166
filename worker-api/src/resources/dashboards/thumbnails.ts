/**
 * Dashboard thumbnails (ARCHITECTURE D62). A view of a dashboard (GET /dashboards/{id}, a public link
 * opened) writes `last_accessed_at`, at most once an hour per dashboard. The cron hands each dashboard
 * with `thumbnail_enabled` that was viewed in the last 24 hours and whose thumbnail is missing or a day
 * old to the job queue (claimed by `thumbnail_queued_at`, so one dashboard is queued at most once a
 * day); the consumer photographs the dashboard with the export renderer (PNG, light mode, its default
 * parameters and page width) and puts the image into the region's bucket at `thumbnails/<id>`.
 * `thumbnail_image_url` holds that object key; clients see the authenticated route
 * `GET /dashboards/{id}/thumbnail` in its place.
 */
import { and, eq, isNull, lt, or, sql as dsql } from 'drizzle-orm';
import type postgres from 'postgres';
import { ApiError } from '@cairn/core';
import { dashboards } from '@cairn/db';
import type { Env } from '../../env.ts';
import type { ServiceContext } from '../../lib/context.ts';
import { pooledDb } from '../../lib/db.ts';
import type { JobMessage } from '../../jobs/messages.ts';
import { renderFile } from '../export-jobs/renderer.ts';
import { mergeParameters } from '../../engine/dashboard-run.ts';
import { thumbnailObjectKey } from './thumbnail-url.ts';

const HOUR_MS = 3_600_000;
/** How often a dashboard's thumbnail is rendered at most, and how recent a view must be to earn one. */
const THUMBNAIL_EVERY_MS = 24 * HOUR_MS;
/** last_accessed_at is written at most this often per dashboard. */
const ACCESS_WRITE_EVERY_MS = HOUR_MS;

/** Dashboard id → when this isolate last wrote (or found) a recent last_accessed_at. */
const touched = new Map<string, number>();

/**
 * Records a view of the dashboard: one conditional update when this isolate has not done so within the
 * hour (and the row's value is older than that), so a busy dashboard costs one write an hour per isolate
 * at most. Awaited by the caller: no background work.
 */
export async function touchDashboard(env: Env, organizationId: string, dashboardId: string, now = Date.now()): Promise<void> {
  const last = touched.get(dashboardId);
  if (last !== undefined && now - last < ACCESS_WRITE_EVERY_MS) return;
  touched.set(dashboardId, now);
  if (touched.size > 10_000) touched.delete(touched.keys().next().value!);
  // A view is not a change: updated_at keeps its value (the column's $onUpdate would move it, and with it
  // the dashboard's read-cache ETag).
  await pooledDb(env)
    .update(dashboards)
    .set({ last_accessed_at: new Date(now), updated_at: dsql`${dashboards.updated_at}` })
    .where(
      and(
        eq(dashboards.id, dashboardId),
        eq(dashboards.organization_id, organizationId),
        or(isNull(dashboards.last_accessed_at), lt(dashboards.last_accessed_at, new Date(now - ACCESS_WRITE_EVERY_MS))),
      ),
    )
    .catch((err) => {
      touched.delete(dashboardId);
      console.error(`dashboard ${dashboardId}: writing last_accessed_at failed`, err);
    });
}

/**
 * Claims the dashboards that are due a thumbnail (viewed in the last 24 h, none rendered or queued in
 * the last 24 h) in this region and answers their job messages. The claim is a conditional update, so
 * overlapping ticks queue each dashboard once.
 */
export async function claimDueThumbnails(sql: postgres.Sql, region: string, now: Date, limit: number): Promise<JobMessage[]> {
  const dayAgo = new Date(now.getTime() - THUMBNAIL_EVERY_MS);
  const rows = await sql<{ id: string; organization_id: string }[]>`
    update dashboards d set thumbnail_queued_at = ${now}
      from (select d2.id from dashboards d2 join organizations o on o.id = d2.organization_id
             where o.region = ${region} and d2.thumbnail_enabled and d2.last_accessed_at > ${dayAgo}
               and (d2.thumbnail_created_at is null or d2.thumbnail_created_at <= ${dayAgo})
               and (d2.thumbnail_queued_at is null or d2.thumbnail_queued_at <= ${dayAgo})
             order by d2.last_accessed_at desc limit ${limit}
             for update of d2 skip locked) due
     where d.id = due.id
       and (d.thumbnail_queued_at is null or d.thumbnail_queued_at <= ${dayAgo})
    returning d.id, d.organization_id`;
  return rows.map((r) => ({ kind: 'thumbnail', organizationId: r.organization_id, dashboardId: r.id }));
}

/**
 * The consumer's part: photographs the dashboard and stores the image. A dashboard that was deleted or
 * had thumbnails switched off meanwhile is skipped. A renderer failure throws (RenderError) for the
 * queue to retry.
 */
export async function renderThumbnail(env: Env, organizationId: string, dashboardId: string): Promise<boolean> {
  const db = pooledDb(env);
  const [d] = await db
    .select({ id: dashboards.id, enabled: dashboards.thumbnail_enabled, width: dashboards.default_page_width, defaults: dashboards.default_parameters })
    .from(dashboards)
    .where(and(eq(dashboards.id, dashboardId), eq(dashboards.organization_id, organizationId)))
    .limit(1);
  if (!d || !d.enabled) return false;
  const file = await renderFile(env, {
    organizationId,
    dashboardId,
    reportId: null,
    parameters: mergeParameters(d.defaults, undefined),
    mode: 'light',
    width: d.width,
    format: 'png',
  });
  const key = thumbnailObjectKey(dashboardId);
  await env.RESULTS.put(key, file.bytes, { httpMetadata: { contentType: 'image/png' } });
  const done = await db
    .update(dashboards)
    .set({ thumbnail_image_url: key, thumbnail_created_at: dsql`now()`, updated_at: dsql`${dashboards.updated_at}` })
    .where(and(eq(dashboards.id, dashboardId), eq(dashboards.organization_id, organizationId)))
    .returning({ id: dashboards.id });
  // Deleted while it was drawn: its image goes too.
  if (!done.length) await env.RESULTS.delete(key);
  return done.length > 0;
}

/** Objects younger than this are left alone by the sweep: a render puts the image before it records it. */
const ORPHAN_MIN_AGE_MS = HOUR_MS;

/**
 * Deletes thumbnails no dashboard row names any more: images of dashboards removed with their
 * organization (a cascade in the database, which cannot reach the bucket), or whose delete from the bucket
 * failed. Walks the `thumbnails/` prefix of the region's bucket a page at a time, at most `maxPages`
 * pages (a thousand keys each) per call, and answers how many it deleted.
 */
export async function sweepOrphanThumbnails(sql: postgres.Sql, bucket: R2Bucket, now: Date, maxPages: number): Promise<number> {
  let cursor: string | undefined;
  let deleted = 0;
  for (let page = 0; page < maxPages; page++) {
    const listed = await bucket.list({ prefix: thumbnailObjectKey(''), cursor, limit: 1000 });
    const old = listed.objects.filter((o) => now.getTime() - o.uploaded.getTime() >= ORPHAN_MIN_AGE_MS).map((o) => o.key);
    if (old.length) {
      const named = await sql<{ key: string }[]>`select thumbnail_image_url as key from dashboards where thumbnail_image_url in ${sql(old)}`;
      const kept = new Set(named.map((r) => r.key));
      const orphans = old.filter((k) => !kept.has(k));
      if (orphans.length) await bucket.delete(orphans);
      deleted += orphans.length;
    }
    if (!listed.truncated) break;
    cursor = listed.cursor;
  }
  return deleted;
}

/** The stored image of a dashboard the caller may see (findDashboard checked it), or a 404. */
export async function thumbnailImage(ctx: ServiceContext, d: { id: string; thumbnail_image_url: string | null }): Promise<Uint8Array> {
  const obj = d.thumbnail_image_url ? await ctx.env.RESULTS.get(d.thumbnail_image_url) : null;
  if (!obj) {
    throw new ApiError(
      'not_found',
      'This dashboard has no thumbnail yet: thumbnails are drawn once a day for dashboards viewed in the last 24 hours (and thumbnail_enabled).',
    );
  }
  return new Uint8Array(await obj.arrayBuffer());
}
