import { and, eq } from 'drizzle-orm';
import { notFound } from '@cairn/core';
import { sqlAlerts } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { requirePermission } from '../../auth/principal.ts';
import { audit } from '../../lib/audit.ts';
import { requireOnAlert } from './access.ts';
import { dispatch } from '../../engine/execute.ts';
import { prepareAlertRun } from '../../engine/alert-run.ts';

/**
 * POST /sql_alerts/{id}/run_query: runs the alert now, whatever its schedule. Needs Manage Alerts
 * reaching the alert and its datasource (an alert the caller cannot see is a 404, as if it did not
 * exist). Answers with the execution id at once; the datasource's gate runs the query, evaluates the
 * trigger condition, sends the e-mails and records the result.
 */
export async function runAlertQuery(ctx: ServiceContext, id: string): Promise<{ execution_id: string }> {
  requirePermission(ctx.principal, 'manage_alerts');
  const [alert] = await ctx.db
    .select()
    .from(sqlAlerts)
    .where(and(eq(sqlAlerts.id, id), eq(sqlAlerts.organization_id, ctx.principal.organizationId)))
    .limit(1);
  if (!alert) throw notFound('SQL alert', id);
  requireOnAlert(ctx.principal, 'manage_alerts', id, alert.datasource_id);
  const actor = ctx.principal.kind === 'api_key' ? ctx.principal.apiKeyId : ctx.principal.userId;
  const job = await prepareAlertRun(ctx.direct().sql, ctx.env, alert, actor);
  await audit(ctx, 'run', 'sql_alerts', id, { execution_id: job.executionId });
  ctx.waitUntil(dispatch(ctx, job).catch((err) => console.error(`[${ctx.requestId}] alert run ${job.executionId} failed to dispatch`, err)));
  return { execution_id: job.executionId };
}
