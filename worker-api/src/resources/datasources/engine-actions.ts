import { and, eq } from 'drizzle-orm';
import { ApiError, signDataToken } from '@cairn/core';
import { datasources } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { requirePermissionOn } from '../../auth/principal.ts';
import { audit } from '../../lib/audit.ts';
import { assertRunnable, dispatch } from '../../engine/execute.ts';
import { createSchemaJob, SCHEMA_MAX_AGE_MS, storeCachedSchema, storedSchemaKey } from '../../engine/schema-store.ts';
import { findDatasource } from './service.ts';
import { boundedTest } from './test-settings.ts';
import { agentsOf } from './links.ts';
import { agentRefs } from '../../engine/connector-env.ts';

/**
 * POST /datasources/{id}/test_connection: connects with the stored settings and answers ok or error
 * with the database's (or the network's) own message; an ok test records the server version. A
 * disabled datasource can be tested (that is how one checks it before enabling it). A type without a
 * driver, an SSH tunnel or an agent: 422 invalid_state naming it; so is a target Cairn refuses (its own
 * metadata database, a blocked private network: engine/connectors/target-guard.ts). The test
 * answers within 10 s (TEST_CONNECTION_MS) even when the peer never speaks the protocol.
 */
export async function testConnection(ctx: ServiceContext, id: string) {
  await requirePermissionOn(ctx.principal, 'manage_datasources', { type: 'datasources', id }, () => findDatasource(ctx, id));
  const ds = await findDatasource(ctx, id);
  const agents = ds.connection_mode === 'agent' ? await agentRefs(ctx, (await agentsOf(ctx, [id])).get(id) ?? []) : undefined;
  const result = await boundedTest({ ...ds, agents }, ctx);
  if (result.status === 'ok' && result.server_version && result.server_version !== ds.server_version) {
    await ctx.db
      .update(datasources)
      .set({ server_version: result.server_version })
      .where(and(eq(datasources.id, id), eq(datasources.organization_id, ctx.principal.organizationId)));
  }
  await audit(ctx, 'test_connection', 'datasources', id, { status: result.status });
  return { status: result.status, error_message: result.error_message };
}

/** POST /datasources/{id}/refresh: reads the schema (and row counts) again in the background; answers with the execution id. */
export async function refreshDatasource(ctx: ServiceContext, id: string) {
  await requirePermissionOn(ctx.principal, 'manage_datasources', { type: 'datasources', id }, () => findDatasource(ctx, id));
  const ds = await findDatasource(ctx, id);
  await assertRunnable(ctx, ds);
  const job = await createSchemaJob(ctx, ds);
  await audit(ctx, 'refresh', 'datasources', id, { execution_id: job.executionId });
  ctx.waitUntil(dispatch(ctx, job).catch((err) => console.error(`[${ctx.requestId}] schema refresh ${job.executionId} failed to dispatch`, err)));
  return { execution_id: job.executionId };
}

const schemaNames = (doc: unknown) =>
  ((doc as { schemas?: { name?: unknown }[] } | null)?.schemas ?? []).map((s) => s?.name).filter((n): n is string => typeof n === 'string');

/**
 * GET /datasources/{id}/schema[?name=]: a data key and a schema token for the data server's
 * GET /schema/{dataKey}. The schema is read through the connector when the cache is empty or older
 * than a day (this call then waits for it), otherwise the cached document is handed out (stored
 * again when its stored copy has expired). With `name`, the token opens that one schema only.
 */
export async function datasourceSchema(ctx: ServiceContext, id: string, name: string | undefined) {
  await requirePermissionOn(ctx.principal, 'view_datasources', { type: 'datasources', id }, () => findDatasource(ctx, id));
  let ds = await findDatasource(ctx, id);
  const fresh = ds.schema_cache !== null && ds.schema_updated_at !== null && Date.now() - ds.schema_updated_at.getTime() < SCHEMA_MAX_AGE_MS;
  let key: string | null = null;
  if (!fresh) {
    await assertRunnable(ctx, ds);
    const outcome = await dispatch(ctx, await createSchemaJob(ctx, ds));
    if (outcome.status !== 'success' || !outcome.dataKey) {
      throw new ApiError('invalid_state', `The schema could not be read: ${outcome.errorMessage ?? outcome.status}`, {
        meta: { execution_id: outcome.executionId, execution_status: outcome.status },
      });
    }
    key = outcome.dataKey;
    ds = await findDatasource(ctx, id);
  }
  if (name !== undefined && !schemaNames(ds.schema_cache).includes(name)) {
    throw new ApiError('not_found', `The datasource has no schema named "${name}".`, { source: { parameter: 'name' } });
  }
  key ??= (await storedSchemaKey(ctx, ds)) ?? (await storeCachedSchema(ctx, ds));
  const token = await signDataToken(
    { kind: 'schema', org: ctx.principal.organizationId, key, region: ctx.env.REGION, ...(name !== undefined ? { name } : {}) },
    ctx.env.DATA_TOKEN_SECRET,
  );
  const base = (ctx.env.DATA_SERVER_URL ?? '').replace(/\/$/, '');
  return { data_key: key, data_access_token: token, data_url: `${base}/schema/${key}` };
}
