import { and, desc, eq, gt, sql } from 'drizzle-orm';
import { ApiError, base64url, fromBase64url } from '@cairn/core';
import { sqlAlertResults } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { can, requirePermission } from '../../auth/principal.ts';
import { findAlert } from './service.ts';
import { alertTarget, requireAlertRead } from './access.ts';
import { RESULTS_DEFAULT, RESULTS_KEPT_DAYS, RESULTS_MAX } from './schema.ts';
import { serializeAlertResult } from './serialize.ts';

/** A position in the newest-first order: the last item's creation time (to the microsecond) and id. */
interface Cursor {
  at: string;
  id: string;
}

const encodeCursor = (c: Cursor) => base64url(new TextEncoder().encode(JSON.stringify([c.at, c.id])));

function decodeCursor(raw: string): Cursor {
  const bad = new ApiError('invalid_query_parameter', 'cursor is not a cursor this call returned.', { source: { parameter: 'cursor' } });
  try {
    const [at, id] = JSON.parse(new TextDecoder().decode(fromBase64url(raw))) as unknown[];
    if (typeof at !== 'string' || typeof id !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(at) || id.length > 64) throw bad;
    return { at, id };
  } catch {
    throw bad;
  }
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return RESULTS_DEFAULT;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > RESULTS_MAX) {
    throw new ApiError('invalid_query_parameter', `limit must be a whole number from 1 to ${RESULTS_MAX}.`, { source: { parameter: 'limit' } });
  }
  return n;
}

/**
 * GET /sql_alerts/{id}/results: the alert's results of the last 30 days, newest first, `limit` at a
 * time, with a cursor for the next page. The query and its duration only with Include SQL Details.
 */
export async function alertResults(ctx: ServiceContext, id: string, query: { cursor?: string; limit?: string }) {
  requirePermission(ctx.principal, 'view_alerts');
  const { datasource_id } = await requireAlertRead(ctx, id);
  const limit = parseLimit(query.limit);
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  await findAlert(ctx, id);
  const at = sql<string>`to_char(${sqlAlertResults.created_at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  const rows = await ctx.db
    .select({ r: sqlAlertResults, at })
    .from(sqlAlertResults)
    .where(
      and(
        eq(sqlAlertResults.sql_alert_id, id),
        eq(sqlAlertResults.organization_id, ctx.principal.organizationId),
        gt(sqlAlertResults.created_at, sql`now() - make_interval(days => ${RESULTS_KEPT_DAYS})`),
        after ? sql`(${sqlAlertResults.created_at}, ${sqlAlertResults.id}) < (${after.at}::timestamptz, ${after.id})` : undefined,
      ),
    )
    .orderBy(desc(sqlAlertResults.created_at), desc(sqlAlertResults.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const details = can(ctx.principal, 'include_sql_details', alertTarget(id, datasource_id));
  const last = page.at(-1);
  return {
    cursor: rows.length > limit && last ? encodeCursor({ at: last.at, id: last.r.id }) : null,
    count: page.length,
    items: page.map((x) => serializeAlertResult(x.r, details)),
  };
}
