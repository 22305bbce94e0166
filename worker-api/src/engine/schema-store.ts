import { and, desc, eq, gt, gte } from 'drizzle-orm';
import { humanName, makeDataKey, newId, sha256Hex } from '@cairn/core';
import { executions, resultChunks, results, type datasources } from '@cairn/db';
import type { ServiceContext } from '../lib/context.ts';
import { CHUNK_BYTES } from './result.ts';
import type { ExecutionJob } from './job.ts';
import { schemaOptionsOf } from './run.ts';
import { EXECUTION_TTL_MS } from './ttl.ts';
import { drizzleStatement, recordExecution, type NewExecution } from './execution-row.ts';
import { poolStatement } from '../lib/db.ts';

type DatasourceRow = typeof datasources.$inferSelect;

/** A cached schema is refreshed when it is older than this (or on POST /datasources/{id}/refresh). */
export const SCHEMA_MAX_AGE_MS = 24 * 3_600_000;
/** A stored schema document is handed out only while it has at least this long to live. */
const MIN_REMAINING_MS = 10 * 60_000;

const schemaHash = (ds: Pick<DatasourceRow, 'id'>) => `schema:${ds.id}`;

/**
 * Records a schema read of the datasource as an execution (type almanach_query) and returns its job
 * for the datasource's gate: the gate reads the schema through the connector (included schemas and
 * databases, row counts per update_schema_row_counts), caches it on the datasource
 * (schema_cache, schema_updated_at, total_row_count, total_row_count_exact) and stores it as the
 * execution's result — one JSON document, which the data server's GET /schema/{dataKey} serves.
 */
export async function createSchemaJob(ctx: ServiceContext, ds: DatasourceRow): Promise<ExecutionJob> {
  const actor = ctx.principal.kind === 'api_key' ? ctx.principal.apiKeyId : ctx.principal.userId;
  const id = await recordExecution(poolStatement(ctx.env), schemaExecution(ds, '', actor));
  return schemaJobOf(ds, id);
}

/** The executions row of a schema read of the datasource (`note`: how it came about, in the recorded text). */
export function schemaExecution(ds: DatasourceRow, note: string, createdBy: string | null): NewExecution {
  return {
    organizationId: ds.organization_id,
    datasourceId: ds.id,
    type: 'almanach_query',
    parameters: {},
    paramsHash: schemaHash(ds),
    createdBy,
    sql: `-- schema of datasource "${ds.name.replace(/[\r\n]+/g, ' ')}"${note ? ` (${note})` : ''}`,
  };
}

/** The gate's job for a schema read recorded as execution `id` (row counts per update_schema_row_counts). */
export function schemaJobOf(ds: DatasourceRow, id: string): ExecutionJob {
  return {
    executionId: id,
    organizationId: ds.organization_id,
    datasourceId: ds.id,
    kind: 'schema',
    text: '',
    values: [],
    paramsHash: schemaHash(ds),
    maxConcurrent: ds.max_concurrent_executions,
    sessionTimeZone: ds.data_time_zone,
    resultTimeZone: 'UTC',
    schema: schemaOptionsOf(ds),
  };
}

/** The data key of a stored copy of the datasource's current cached schema, if one lives long enough. */
export async function storedSchemaKey(ctx: ServiceContext, ds: DatasourceRow): Promise<string | null> {
  if (!ds.schema_updated_at) return null;
  const [row] = await ctx.db
    .select({ key: results.data_key })
    .from(results)
    .innerJoin(executions, eq(executions.id, results.execution_id))
    .where(
      and(
        eq(results.organization_id, ds.organization_id),
        eq(executions.params_hash, schemaHash(ds)),
        eq(executions.execution_status, 'success'),
        gte(results.data_timestamp, ds.schema_updated_at),
        gt(results.expires_at, new Date(Date.now() + MIN_REMAINING_MS)),
      ),
    )
    .orderBy(desc(results.data_timestamp))
    .limit(1);
  return row?.key ?? null;
}

/** Stores the cached schema document again (its stored copy expired) and returns the new data key. */
export async function storeCachedSchema(ctx: ServiceContext, ds: DatasourceRow): Promise<string> {
  const id = newId('execution');
  const now = new Date();
  const expires = new Date(now.getTime() + EXECUTION_TTL_MS);
  const bytes = new TextEncoder().encode(JSON.stringify(ds.schema_cache));
  const dataKey = makeDataKey(ctx.env.REGION, ds.organization_id, id, (await sha256Hex(`${id}:${schemaHash(ds)}`)).slice(0, 16));
  const pieces: { execution_id: string; seq: number; rows: number; data: Uint8Array }[] = [];
  for (let at = 0, n = 0; at < bytes.length || n === 0; at += CHUNK_BYTES, n++) {
    pieces.push({ execution_id: id, seq: n, rows: n === 0 ? 1 : 0, data: bytes.subarray(at, Math.min(bytes.length, at + CHUNK_BYTES)) });
  }
  await ctx.direct().db.transaction(async (tx) => {
    await recordExecution(drizzleStatement(tx), { ...schemaExecution(ds, 'cached', null), id, status: 'success' });
    await tx
      .update(executions)
      .set({ result_columns: 1, result_rows: 1, result_size: bytes.length, started_at: now, completed_at: now, expires_at: expires })
      .where(eq(executions.id, id));
    for (const p of pieces) await tx.insert(resultChunks).values(p);
    await tx.insert(results).values({
      execution_id: id,
      organization_id: ds.organization_id,
      data_key: dataKey,
      row_count: 1,
      size_in_bytes: bytes.length,
      time_zone: 'UTC',
      fields: [
        { idx: 0, name: 'schema', data_type: 'JSON', unique_count: 1, human_name: humanName('schema'), min_value: null, max_value: null, group_by: false },
      ],
      data_timestamp: ds.schema_updated_at ?? now,
      expires_at: expires,
    });
  });
  return dataKey;
}
