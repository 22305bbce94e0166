import type postgres from 'postgres';
import { ApiError, makeDataKey, sha256Hex } from '@cairn/core';
import { schema, type DbClient } from '@cairn/db';
import type { Env } from '../env.ts';
import type { ServiceContext } from '../lib/context.ts';
import { runOnDatasource } from './connectors.ts';
import type { ExecutionJob, ExecutionOutcome, FinalStatus } from './job.ts';
import { EXECUTION_TTL_MS } from './ttl.ts';

export type CancelHandle = () => Promise<void>;

export interface RunDeps {
  env: Env;
  /** A pool on Cairn's own database. */
  sql: postgres.Sql;
}

export interface RunHooks {
  onCancelHandle: (h: CancelHandle) => void;
  isCancelled: () => boolean;
}

/** The outcome's status for an error thrown while running. */
function statusOf(err: unknown, cancelled: boolean): FinalStatus {
  if (cancelled) return 'cancelled';
  const e = err as { code?: string; meta?: { sqlstate?: string }; message?: string };
  if (err instanceof ApiError) {
    if (/statement timeout|timed out|max_statement_time|maximum statement execution time/i.test(err.message)) return 'timed_out';
    if (err.code === 'query_error') return 'query_error';
    return 'internal_error';
  }
  if (e.code === '57014') return 'timed_out';
  return 'internal_error';
}

/**
 * Runs one execution to its end inside the datasource's gate: marks it running, runs the SQL on the
 * datasource, stores the rows as JSON chunks and the field statistics, and records the final status
 * (success, query_error, timed_out, cancelled or internal_error) with the database's own message.
 */
export async function runJob(deps: RunDeps, job: ExecutionJob, hooks: RunHooks): Promise<ExecutionOutcome> {
  const { sql } = deps;
  const id = job.executionId;
  const fail = async (status: FinalStatus, message: string): Promise<ExecutionOutcome> => {
    await sql`update executions set execution_status = ${status}, completed_at = now(), updated_at = now(),
      error_message = ${message.slice(0, 4000)} where id = ${id}`;
    return { executionId: id, status, dataKey: null, rowCount: 0, errorMessage: message };
  };
  const [ds] = await sql<(typeof schema.datasources.$inferSelect)[]>`
    select * from datasources where id = ${job.datasourceId} and organization_id = ${job.organizationId}`;
  if (!ds) return fail('internal_error', 'The datasource no longer exists.');
  if (hooks.isCancelled()) return fail('cancelled', 'Cancelled before it started.');
  await sql`update executions set execution_status = 'running', started_at = now(), updated_at = now() where id = ${id}`;

  // The connectors take a service context; inside the gate it is this pool and the environment. (No
  // drizzle on this pool: drizzle's driver turns postgres.js's own date and json serializers off.)
  const direct = { sql, get db(): never { throw new Error('No drizzle client inside the gate.'); } } as unknown as DbClient;
  const ctx = {
    env: deps.env, direct: () => direct, waitUntil: (p: Promise<unknown>) => void p.catch(() => {}),
  } as unknown as ServiceContext;
  let built;
  try {
    built = await runOnDatasource(ctx, ds, job.text, job.values);
  } catch (err) {
    const status = statusOf(err, hooks.isCancelled());
    const message = status === 'cancelled' ? 'Cancelled.' : err instanceof Error ? err.message : 'The query failed.';
    return fail(status, message);
  }
  if (hooks.isCancelled()) return fail('cancelled', 'Cancelled.');

  const now = new Date();
  const expires = new Date(now.getTime() + EXECUTION_TTL_MS);
  const dataKey = makeDataKey(deps.env.REGION, job.organizationId, id, (await sha256Hex(`${id}:${job.paramsHash}`)).slice(0, 16));
  const fields = built.fields();
  await sql.begin(async (tx) => {
    await tx`insert into results (execution_id, organization_id, data_key, fields, row_count, size_in_bytes, time_zone, data_timestamp, expires_at)
      values (${id}, ${job.organizationId}, ${dataKey}, ${JSON.stringify(fields)}::json, ${built.rowCount}, ${built.sizeInBytes},
              ${job.resultTimeZone}, ${now}, ${expires})`;
    const enc = new TextEncoder();
    for (let i = 0; i < built.chunks.length; i++) {
      const c = built.chunks[i]!;
      await tx`insert into result_chunks (execution_id, seq, rows, data) values (${id}, ${i}, ${c.rows}, ${enc.encode(c.data)})`;
    }
    await tx`update executions set execution_status = 'success', completed_at = now(), updated_at = now(),
      result_columns = ${fields.length}, result_rows = ${built.rowCount}, result_size = ${built.sizeInBytes} where id = ${id}`;
  });
  return { executionId: id, status: 'success', dataKey, rowCount: built.rowCount, errorMessage: null };
}
