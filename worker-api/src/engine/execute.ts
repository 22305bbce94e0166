import { and, desc, eq, gt } from 'drizzle-orm';
import {
  compileSql, makeDataKey, newId, sha256Hex, ApiError,
  type FilterDefinition, type InputParameters,
} from '@cairn/core';
import { datasources, executions, resultChunks, results } from '@cairn/db';
import type { ServiceContext } from '../lib/context.ts';
import { runOnDatasource } from './connectors.ts';

export const EXECUTION_TTL_MS = 24 * 3_600_000;

export interface ExecutionOutcome {
  executionId: string;
  dataKey: string;
  rowCount: number;
  reused: boolean;
}

/**
 * Runs (or reuses) a query for a report: compiles the filter syntax into bound parameters, looks for
 * a result of the same compiled query that is still fresh under `freshMinutes`, otherwise executes
 * it, stores the rows in chunks and records the execution. A user's bad SQL becomes a stored
 * `query_error` execution and a 422.
 */
export async function executeQuery(ctx: ServiceContext, input: {
  datasourceId: string;
  sql: string;
  filters: FilterDefinition[];
  parameters: InputParameters;
  freshMinutes: number;
  source: { report_id?: string; filter_id?: string };
  executionType: 'sql_query' | 'sql_filter';
}): Promise<ExecutionOutcome> {
  const org = ctx.principal.organizationId;
  const [ds] = await ctx.db.select().from(datasources)
    .where(and(eq(datasources.id, input.datasourceId), eq(datasources.organization_id, org))).limit(1);
  if (!ds) throw new ApiError('invalid_relationship', 'The datasource of this report no longer exists.');
  const compiled = compileSql({ sql: input.sql, dialect: 'postgres', filters: input.filters, parameters: input.parameters });
  const paramsHash = await sha256Hex(JSON.stringify([ds.id, compiled.text, compiled.values]));

  const now = new Date();
  const [fresh] = await ctx.db
    .select({ id: executions.id, key: results.data_key, rows: results.row_count })
    .from(executions).innerJoin(results, eq(results.execution_id, executions.id))
    .where(and(
      eq(executions.organization_id, org),
      eq(executions.params_hash, paramsHash),
      eq(executions.execution_status, 'success'),
      gt(executions.completed_at, new Date(now.getTime() - input.freshMinutes * 60_000)),
      gt(results.expires_at, now),
    ))
    .orderBy(desc(executions.completed_at)).limit(1);
  if (fresh) return { executionId: fresh.id, dataKey: fresh.key, rowCount: fresh.rows, reused: true };

  const id = newId('execution');
  const expires = new Date(now.getTime() + EXECUTION_TTL_MS);
  const actor = ctx.principal.kind === 'api_key' ? ctx.principal.apiKeyId : ctx.principal.userId;
  await ctx.db.insert(executions).values({
    id, organization_id: org, datasource_id: ds.id, execution_type: input.executionType, execution_status: 'running',
    ...input.source, sql_query: input.sql, parameters: input.parameters, params_hash: paramsHash,
    created_by: actor, started_at: now, expires_at: expires,
  });
  try {
    const built = await runOnDatasource(ctx, ds, compiled.text, compiled.values);
    const dataKey = makeDataKey(ctx.env.REGION, org, id, (await sha256Hex(`${id}:${paramsHash}`)).slice(0, 16));
    const fields = built.fields();
    await ctx.direct().db.transaction(async (tx) => {
      await tx.insert(results).values({
        execution_id: id, organization_id: org, data_key: dataKey, fields, row_count: built.rowCount,
        size_in_bytes: built.sizeInBytes, time_zone: ds.data_time_zone, data_timestamp: now, expires_at: expires,
      });
      for (let i = 0; i < built.chunks.length; i += 8) {
        await tx.insert(resultChunks).values(built.chunks.slice(i, i + 8).map((c, j) => ({
          execution_id: id, seq: i + j, rows: c.rows, data: new TextEncoder().encode(c.data),
        })));
      }
      await tx.update(executions).set({
        execution_status: 'success', completed_at: new Date(), result_columns: fields.length,
        result_rows: built.rowCount, result_size: built.sizeInBytes,
      }).where(eq(executions.id, id));
    });
    return { executionId: id, dataKey, rowCount: built.rowCount, reused: false };
  } catch (err) {
    const status = err instanceof ApiError && err.code === 'query_error' ? 'query_error' : 'internal_error';
    await ctx.db.update(executions).set({
      execution_status: status, completed_at: new Date(),
      error_message: err instanceof Error ? err.message.slice(0, 4000) : 'failed',
    }).where(eq(executions.id, id));
    throw err;
  }
}
