import { and, eq } from 'drizzle-orm';
import { dialectOf, ApiError, type FilterDefinition, type InputParameters } from '@cairn/core';
import { datasources, type dashboards } from '@cairn/db';
import type { ServiceContext } from '../lib/context.ts';
import type { ExecutionJob, ExecutionOutcome } from './job.ts';
import { compileExtras, type CompileExtras } from './compile-context.ts';
import { connectorFor } from './connectors/index.ts';
import { targetPolicy } from './target-policy.ts';
import { awaitWithLease, type LeaseQuery } from './lease.ts';
import { poolStatement } from '../lib/db.ts';
import { compileIdentified } from './identity.ts';
import { latestResult, queryJob, recordExecution, type ExecutionType } from './execution-row.ts';
import { datasourceGateStub } from '../durable/stubs.ts';

type DatasourceRow = typeof datasources.$inferSelect;

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

export async function loadDatasource(ctx: ServiceContext, id: string): Promise<DatasourceRow> {
  const [ds] = await ctx.db
    .select()
    .from(datasources)
    .where(and(eq(datasources.id, id), eq(datasources.organization_id, ctx.principal.organizationId)))
    .limit(1);
  if (!ds) throw new ApiError('invalid_relationship', 'The datasource no longer exists.');
  return ds;
}

/** Compiles the SQL for the datasource's dialect and hashes what identifies its result. */
export async function compileFor(ds: DatasourceRow, input: ExecutionInput) {
  return compileIdentified(ds.id, {
    sql: input.sql,
    dialect: dialectOf(ds.database_type) ?? 'postgres',
    filters: input.filters,
    parameters: input.parameters,
    dataTimeZone: ds.data_time_zone,
    timeZone: input.extras?.timeZone ?? null,
    aggregationOptions: input.extras?.aggregationOptions ?? null,
    snippets: input.extras?.snippets ?? [],
    context: input.extras?.context ?? null,
  });
}

/** A successful result of the same compiled query that is younger than `freshMinutes`. */
async function findFresh(ctx: ServiceContext, paramsHash: string, freshMinutes: number) {
  const found = await latestResult(poolStatement(ctx.env), ctx.principal.organizationId, paramsHash);
  if (!found || found.completedAt <= Date.now() - freshMinutes * 60_000) return null;
  return { id: found.executionId, key: found.dataKey, rows: found.rowCount, at: new Date(found.dataTimestamp), timeZone: found.timeZone };
}

/**
 * Whether the datasource can run queries at all: a 422 invalid_state naming what is missing (a type
 * without a driver, a disabled datasource, an SSH tunnel or agent, no host). Opens no connection.
 */
export async function assertRunnable(ctx: Pick<ServiceContext, 'env'>, ds: DatasourceRow): Promise<void> {
  await connectorFor(ds, { secretKey: ctx.env.SECRET_KEY, sampleDb: ctx.env.SAMPLE_DB, policy: targetPolicy(ctx.env) });
}

type Compiled = { text: string; values: unknown[]; sessionTimeZone: string; timeZone: string };

/** Records a new execution (status starting) and returns the job for the datasource's gate. */
export async function createExecution(
  ctx: ServiceContext,
  ds: DatasourceRow,
  input: ExecutionInput,
  compiled: Compiled,
  paramsHash: string,
): Promise<ExecutionJob> {
  await assertRunnable(ctx, ds);
  const actor = ctx.principal.kind === 'api_key' ? ctx.principal.apiKeyId : ctx.principal.userId;
  const id = await recordExecution(poolStatement(ctx.env), {
    organizationId: ctx.principal.organizationId,
    datasourceId: ds.id,
    type: input.executionType,
    source: input.source,
    sql: input.sql,
    parameters: input.parameters,
    paramsHash,
    createdBy: actor,
  });
  return queryJob(
    { executionId: id, organizationId: ctx.principal.organizationId, datasourceId: ds.id, maxConcurrent: ds.max_concurrent_executions },
    compiled,
    paramsHash,
  );
}

export const gateOf = (ctx: Pick<ServiceContext, 'env'>, datasourceId: string) => datasourceGateStub(ctx.env, datasourceId);

/**
 * Hands the job to its datasource's gate; the promise settles when the execution ends, or when its
 * lease runs out because the runtime running it died (then internal_error: engine/lease.ts).
 */
export function dispatch(ctx: Pick<ServiceContext, 'env'>, job: ExecutionJob, query: LeaseQuery = poolStatement(ctx.env)): Promise<ExecutionOutcome> {
  const work = gateOf(ctx, job.datasourceId).run(job) as Promise<ExecutionOutcome>;
  return awaitWithLease(ctx.env, query, job.executionId, work);
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
  const extras = input.extras ?? (await compileExtras(ctx, input.dashboard ?? null, input.parameters));
  const { compiled, paramsHash } = await compileFor(ds, { ...input, extras });
  const fresh = await findFresh(ctx, paramsHash, input.freshMinutes);
  if (fresh) return { executionId: fresh.id, dataKey: fresh.key, rowCount: fresh.rows, reused: true, timeZone: fresh.timeZone };
  const job = await createExecution(ctx, ds, input, compiled, paramsHash);
  const out = await dispatch(ctx, job);
  if (out.status !== 'success' || !out.dataKey) {
    const detail =
      out.status === 'timed_out'
        ? `The query ran longer than the statement timeout: ${out.errorMessage ?? ''}`.trim()
        : (out.errorMessage ?? 'The query failed.');
    if (out.status === 'internal_error' || out.status === 'internal_timeout') {
      throw new ApiError('invalid_state', `The query could not run: ${detail}`, { meta: { execution_id: out.executionId, execution_status: out.status } });
    }
    throw new ApiError('query_error', detail, {
      source: { pointer: '/data/attributes/sql_query' },
      meta: { execution_id: out.executionId, execution_status: out.status },
    });
  }
  return { executionId: out.executionId, dataKey: out.dataKey, rowCount: out.rowCount, reused: false, timeZone: compiled.timeZone };
}
