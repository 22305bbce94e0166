import { and, desc, eq, gt } from 'drizzle-orm';
import {
  compileSql, dialectOf, newId, ApiError,
  type FilterDefinition, type InputParameters,
} from '@cairn/core';
import { datasources, executions, results, type dashboards } from '@cairn/db';
import type { ServiceContext } from '../lib/context.ts';
import type { ExecutionJob, ExecutionOutcome } from './job.ts';
import { EXECUTION_TTL_MS } from './ttl.ts';
import { compileExtras, type CompileExtras } from './compile-context.ts';
import { connectorFor } from './connectors/index.ts';
import { targetPolicy } from './target-policy.ts';
import { awaitWithLease } from './lease.ts';
import { poolStatement } from '../lib/db.ts';
import { resultIdentity } from './identity.ts';

export { EXECUTION_TTL_MS };

type DatasourceRow = typeof datasources.$inferSelect;
export type ExecutionType = 'sql_query' | 'sql_filter' | 'sql_alert' | 'almanach_query' | 'export_query';

export interface ExecutionInput {
  datasourceId: string;
  /**
   * Snippets, time zone and built-in snippet values (engine/compile-context.ts). `executeQuery` reads
   * them itself when absent (for `dashboard`, when given).
   */
  extras?: Partial<CompileExtras>;
  dashboard?: typeof dashboards.$inferSelect | null;
  sql: string;
  filters: FilterDefinition[];
  parameters: InputParameters;
  source: { report_id?: string; filter_id?: string; sql_alert_id?: string };
  executionType: ExecutionType;
}

export const dialectOfDatasource = (ds: Pick<DatasourceRow, 'database_type'>) => dialectOf(ds.database_type) ?? 'postgres';

export async function loadDatasource(ctx: ServiceContext, id: string): Promise<DatasourceRow> {
  const [ds] = await ctx.db.select().from(datasources)
    .where(and(eq(datasources.id, id), eq(datasources.organization_id, ctx.principal.organizationId))).limit(1);
  if (!ds) throw new ApiError('invalid_relationship', 'The datasource no longer exists.');
  return ds;
}

/** Compiles the SQL for the datasource's dialect and hashes what identifies its result. */
export async function compileFor(ds: DatasourceRow, input: ExecutionInput) {
  const compiled = compileSql({
    sql: input.sql, dialect: dialectOf(ds.database_type) ?? 'postgres', filters: input.filters, parameters: input.parameters,
    dataTimeZone: ds.data_time_zone, timeZone: input.extras?.timeZone ?? null, aggregationOptions: input.extras?.aggregationOptions ?? null,
    snippets: input.extras?.snippets ?? [], context: input.extras?.context ?? null,
  });
  const paramsHash = await resultIdentity(ds.id, compiled);
  return { compiled, paramsHash };
}

/** A successful result of the same compiled query that is younger than `freshMinutes`. */
export async function findFresh(ctx: ServiceContext, paramsHash: string, freshMinutes: number) {
  const now = new Date();
  const [fresh] = await ctx.db
    .select({ id: executions.id, key: results.data_key, rows: results.row_count, at: results.data_timestamp, timeZone: results.time_zone })
    .from(executions).innerJoin(results, eq(results.execution_id, executions.id))
    .where(and(
      eq(executions.organization_id, ctx.principal.organizationId),
      eq(executions.params_hash, paramsHash),
      eq(executions.execution_status, 'success'),
      gt(executions.completed_at, new Date(now.getTime() - freshMinutes * 60_000)),
      gt(results.expires_at, now),
    ))
    .orderBy(desc(executions.completed_at)).limit(1);
  return fresh ?? null;
}

/**
 * Whether the datasource can run queries at all: a 422 invalid_state naming what is missing (a type
 * without a driver, a disabled datasource, an SSH tunnel or agent, no host). Opens no connection.
 */
export async function assertRunnable(ctx: Pick<ServiceContext, 'env'>, ds: DatasourceRow): Promise<void> {
  await connectorFor(ds, { secretKey: ctx.env.SECRET_KEY, sampleDb: ctx.env.SAMPLE_DB, policy: targetPolicy(ctx.env) });
}

/** Records a new execution (status starting) and returns the job for the datasource's gate. */
export async function createExecution(
  ctx: ServiceContext, ds: DatasourceRow, input: ExecutionInput, compiled: { text: string; values: unknown[]; sessionTimeZone: string; timeZone: string }, paramsHash: string,
): Promise<ExecutionJob> {
  await assertRunnable(ctx, ds);
  const id = newId('execution');
  const actor = ctx.principal.kind === 'api_key' ? ctx.principal.apiKeyId : ctx.principal.userId;
  await ctx.db.insert(executions).values({
    id, organization_id: ctx.principal.organizationId, datasource_id: ds.id, execution_type: input.executionType,
    execution_status: 'starting', ...input.source, sql_query: input.sql, parameters: input.parameters, params_hash: paramsHash,
    created_by: actor, expires_at: new Date(Date.now() + EXECUTION_TTL_MS),
  });
  return {
    executionId: id, organizationId: ctx.principal.organizationId, datasourceId: ds.id, text: compiled.text, values: compiled.values,
    paramsHash, maxConcurrent: ds.max_concurrent_executions, sessionTimeZone: compiled.sessionTimeZone, resultTimeZone: compiled.timeZone,
  };
}

export const gateOf = (ctx: Pick<ServiceContext, 'env'>, datasourceId: string) =>
  ctx.env.DATASOURCE_GATE.get(ctx.env.DATASOURCE_GATE.idFromName(`gate::${datasourceId}`));

/**
 * Hands the job to its datasource's gate; the promise settles when the execution ends, or when its
 * lease runs out because the runtime running it died (then internal_error: engine/lease.ts).
 */
export function dispatch(ctx: Pick<ServiceContext, 'env'>, job: ExecutionJob): Promise<ExecutionOutcome> {
  const work = gateOf(ctx, job.datasourceId).run(job) as Promise<ExecutionOutcome>;
  return awaitWithLease(ctx.env, poolStatement(ctx.env), job.executionId, work);
}

export interface QueryOutcome {
  executionId: string;
  dataKey: string;
  rowCount: number;
  reused: boolean;
  /** The zone the result was computed in (its `time_zone`): part of its identity, so the zone in force. */
  timeZone: string;
}

/**
 * Runs (or reuses) a query and waits for it: a result of the same compiled query, computed for the
 * same zone (engine/identity.ts), that is still fresh under `freshMinutes` is reused; otherwise a new execution goes through the datasource's gate.
 * A user's bad SQL is a 422 query_error with the database's message; a timeout or cancellation a 422
 * naming it.
 */
export async function executeQuery(ctx: ServiceContext, input: ExecutionInput & { freshMinutes: number }): Promise<QueryOutcome> {
  const ds = await loadDatasource(ctx, input.datasourceId);
  const extras = input.extras ?? await compileExtras(ctx, input.dashboard ?? null, input.parameters);
  const { compiled, paramsHash } = await compileFor(ds, { ...input, extras });
  const fresh = await findFresh(ctx, paramsHash, input.freshMinutes);
  if (fresh) return { executionId: fresh.id, dataKey: fresh.key, rowCount: fresh.rows, reused: true, timeZone: fresh.timeZone };
  const job = await createExecution(ctx, ds, input, compiled, paramsHash);
  const out = await dispatch(ctx, job);
  if (out.status !== 'success' || !out.dataKey) {
    const detail = out.status === 'timed_out'
      ? `The query ran longer than the statement timeout: ${out.errorMessage ?? ''}`.trim()
      : out.errorMessage ?? 'The query failed.';
    if (out.status === 'internal_error' || out.status === 'internal_timeout') {
      throw new ApiError('invalid_state', `The query could not run: ${detail}`, { meta: { execution_id: out.executionId, execution_status: out.status } });
    }
    throw new ApiError('query_error', detail, {
      source: { pointer: '/data/attributes/sql_query' }, meta: { execution_id: out.executionId, execution_status: out.status },
    });
  }
  return { executionId: out.executionId, dataKey: out.dataKey, rowCount: out.rowCount, reused: false, timeZone: compiled.timeZone };
}
