import type postgres from 'postgres';
import { ApiError, humanName, makeDataKey, sha256Hex, type ResultField } from '@cairn/core';
import type { Env } from '../env.ts';
import {
  ConnectorError,
  closeInBackground,
  connectorFor,
  type AgentRef,
  type CancelHandle,
  type Connector,
  type DatasourceRow,
  type SchemaData,
  type SchemaOptions,
} from './connectors/index.ts';
import { CHUNK_BYTES, type ResultChunk, type RowSink } from './result.ts';
import type { ExecutionJob, ExecutionOutcome, FinalStatus } from './job.ts';
import { ResultObjectWriter, resultObjectKey, type ResultBucket, type StoredObject } from '@cairn/core/results/object';
import { EXECUTION_TTL_MS } from './ttl.ts';
import { targetPolicy } from './target-policy.ts';
import { sshKeyFromSql } from './ssh-key.ts';
import { leaseMsOf } from './lease.ts';
import { settingsOf } from '../config.ts';

export interface RunDeps {
  env: Env;
  /** A pool on Cairn's own database for status updates and result storage. */
  sql: postgres.Sql;
  /** The region's R2 bucket: a query's rows go to one object there (D55; required, D61). */
  bucket: ResultBucket;
}

export interface RunHooks {
  /** Aborted when the execution is cancelled. */
  signal: AbortSignal;
  /** The running statement's handle, for cancelling it from a second connection. */
  onCancelHandle?: (handle: CancelHandle, ds: DatasourceRow) => void;
}

/** How long past the guard a run that ignores being stopped is waited for. */
const HARD_STOP_GRACE_MS = 15_000;

/** The statement timeout and the overall guard of a job (job → environment → defaults). */
export function limitsOf(env: Pick<Env, 'STATEMENT_TIMEOUT_MS' | 'EXECUTION_GUARD_MS'>, job: Pick<ExecutionJob, 'timeoutMs' | 'guardMs'>) {
  const settings = settingsOf(env);
  const timeoutMs = job.timeoutMs ?? settings.statementTimeoutMs;
  const guardMs = job.guardMs ?? settings.executionGuardMs;
  return { timeoutMs, guardMs };
}

const FINISHED = ['cancelled', 'success', 'query_error', 'timed_out', 'internal_error', 'internal_timeout'];

class GuardExceeded extends Error {}

/** The final status and message for anything a run may throw. */
function failureOf(err: unknown, state: { cancelled: boolean; guardFired: boolean; guardMs: number }): { status: FinalStatus; message: string } {
  if (state.guardFired || err instanceof GuardExceeded) {
    return { status: 'internal_timeout', message: `The execution was stopped after ${Math.round(state.guardMs / 1000)} s, Cairn's limit for one execution.` };
  }
  if (state.cancelled) return { status: 'cancelled', message: 'The query was cancelled.' };
  if (err instanceof ConnectorError) {
    // A refused target (Cairn's own database, a blocked network) is the datasource's error, like bad SQL.
    const status: FinalStatus = err.kind === 'connection_error' ? 'internal_error' : err.kind === 'refused' ? 'query_error' : err.kind;
    return { status, message: err.message };
  }
  if (err instanceof ApiError) return { status: 'internal_error', message: err.message };
  const message = err instanceof Error && err.message ? err.message : String(err);
  return { status: 'internal_error', message: `The result could not be stored: ${message}` };
}

/** What the schema refresh of a datasource reads (its included schemas/databases and row-count setting). */
export function schemaOptionsOf(ds: Pick<DatasourceRow, 'included_schemas' | 'included_databases' | 'update_schema_row_counts'>): SchemaOptions {
  return { included_schemas: ds.included_schemas ?? null, included_databases: ds.included_databases ?? null, rowCounts: ds.update_schema_row_counts };
}

/** The one field of a stored schema document (results of kind schema hold one JSON object, not rows). */
const SCHEMA_FIELDS: ResultField[] = [
  { idx: 0, name: 'schema', data_type: 'JSON', unique_count: 1, human_name: humanName('schema'), min_value: null, max_value: null, group_by: false },
];

/**
 * Runs one execution to its end inside the datasource's gate: marks it running, streams the
 * connector's result chunks into the result's object in the region's bucket as they fill, then
 * records the result with its field statistics and the final status with the database's own message:
 * success, query_error, timed_out (statement timeout), cancelled, internal_error (unreachable
 * database, no driver, storage failure) or internal_timeout (the overall guard).
 */
export async function runJob(deps: RunDeps, job: ExecutionJob, hooks: RunHooks): Promise<ExecutionOutcome> {
  const { sql } = deps;
  const id = job.executionId;
  const { timeoutMs, guardMs } = limitsOf(deps.env, job);
  const t0 = Date.now();
  const finish = async (status: FinalStatus, message: string): Promise<ExecutionOutcome> => {
    await sql`delete from result_chunks where execution_id = ${id}`;
    await sql`update executions set execution_status = ${status}, completed_at = now(), updated_at = now(),
      error_message = ${message.slice(0, 4000)} where id = ${id} and execution_status not in ${sql(FINISHED)}`;
    return { executionId: id, status, dataKey: null, rowCount: 0, errorMessage: message, durationMs: Date.now() - t0 };
  };

  const [ds] = await sql<DatasourceRow[]>`select * from datasources where id = ${job.datasourceId} and organization_id = ${job.organizationId}`;
  if (!ds) return finish('internal_error', 'The datasource no longer exists.');
  if (hooks.signal.aborted) return finish('cancelled', 'Cancelled before it started.');
  // The gate renews the lease from here on (engine/lease.ts); this gives the run a full one to start with.
  await sql`update executions set execution_status = 'running', started_at = now(), updated_at = now(),
      lease_expires_at = now() + ${leaseMsOf(deps.env)}::float8 * interval '1 millisecond'
    where id = ${id} and execution_status not in ${sql(FINISHED)}`;

  // Cancelling and the guard both stop the connector through one signal.
  const stop = new AbortController();
  const state = { cancelled: false, guardFired: false, guardMs };
  const onCancel = () => {
    state.cancelled = true;
    stop.abort();
  };
  hooks.signal.addEventListener('abort', onCancel, { once: true });
  const guardTimer = setTimeout(() => {
    state.guardFired = true;
    stop.abort();
  }, guardMs);
  let hardTimer: ReturnType<typeof setTimeout> | null = null;
  const hardStop = new Promise<never>((_, reject) => {
    hardTimer = setTimeout(() => reject(new GuardExceeded()), guardMs + HARD_STOP_GRACE_MS);
  });

  try {
    const agents = ds.connection_mode === 'agent' ? await agentRefsOf(sql, ds) : undefined;
    const connector = await connectorFor(
      { ...ds, agents },
      {
        secretKey: deps.env.SECRET_KEY,
        sampleDb: deps.env.SAMPLE_DB,
        closer: closeInBackground,
        policy: targetPolicy(deps.env, (text) => deps.sql.unsafe(text)),
        agentHub: deps.env.AGENT_HUB,
        sshKey: sshKeyFromSql(deps.sql, deps.env.SECRET_KEY),
      },
    );
    const work = job.kind === 'schema' ? readSchema(deps, job, ds, connector) : runQuery(deps, job, ds, connector, { timeoutMs, signal: stop.signal, hooks });
    // If the hard stop wins, the work may still end later: storeResult then finds the execution ended and stores nothing.
    work.catch(() => {});
    const stored = await Promise.race([work, hardStop]);
    return { ...stored, durationMs: Date.now() - t0 };
  } catch (err) {
    const { status, message } = failureOf(err, state);
    return finish(status, message);
  } finally {
    clearTimeout(guardTimer);
    if (hardTimer) clearTimeout(hardTimer);
    hooks.signal.removeEventListener('abort', onCancel);
  }
}

/** The agents a datasource names (connection_mode agent), by name. */
function agentRefsOf(sql: postgres.Sql, ds: Pick<DatasourceRow, 'id' | 'organization_id'>): Promise<AgentRef[]> {
  return sql<AgentRef[]>`select a.id, a.name from datasource_agent_links l join datasource_agents a on a.id = l.agent_id
    where l.datasource_id = ${ds.id} and a.organization_id = ${ds.organization_id} and a.enabled order by a.name, a.id`;
}

/**
 * Streams the query's rows into one object of the region's bucket (D55): the chunks are appended in
 * order and full 8 MiB parts are uploaded while the next ones fill; the result row records the object
 * and its chunk index. A run that fails or is stopped aborts the upload.
 */
async function runQuery(
  deps: RunDeps,
  job: ExecutionJob,
  ds: DatasourceRow,
  connector: Connector,
  opts: { timeoutMs: number; signal: AbortSignal; hooks: RunHooks },
): Promise<ExecutionOutcome> {
  const { bucket } = deps;
  const writer = new ResultObjectWriter(bucket, resultObjectKey(job.executionId));
  const sink: RowSink = { chunk: (c: ResultChunk) => writer.append(c.rows, c.data) };
  let stored: StoredObject | null = null;
  try {
    const summary = await connector.run({ text: job.text, values: job.values }, sink, {
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      timeZone: job.sessionTimeZone,
      onCancelHandle: (handle) => opts.hooks.onCancelHandle?.(handle, ds),
    });
    if (opts.signal.aborted) throw new Error('stopped');
    stored = await writer.finish();
    return await storeResult(deps, job, summary.fields, summary.rowCount, summary.sizeInBytes, new Date(), stored);
  } catch (err) {
    // Stored but not recorded (cancelled meanwhile): the object goes too.
    await (stored ? bucket.delete(stored.key).catch(() => {}) : writer.abort());
    throw err;
  }
}

/** Reads the schema, caches it on the datasource and stores it as the execution's result (one JSON document). */
async function readSchema(deps: RunDeps, job: ExecutionJob, ds: DatasourceRow, connector: Connector): Promise<ExecutionOutcome> {
  const { sql } = deps;
  const data: SchemaData = await connector.schema(job.schema ?? schemaOptionsOf(ds));
  const now = new Date();
  const doc = {
    schemas: data.schemas,
    schema_updated_at: now.toISOString(),
    ...(data.total_row_count !== undefined ? { total_row_count: data.total_row_count, total_row_count_exact: data.total_row_count_exact ?? false } : {}),
  };
  const bytes = new TextEncoder().encode(JSON.stringify(doc));
  for (let at = 0, n = 0; at < bytes.length || n === 0; at += CHUNK_BYTES, n++) {
    const piece = bytes.subarray(at, Math.min(bytes.length, at + CHUNK_BYTES));
    await sql`insert into result_chunks (execution_id, seq, rows, data) values (${job.executionId}, ${n}, ${n === 0 ? 1 : 0}, ${piece})`;
  }
  await sql`update datasources set schema_cache = ${sql.json(doc as never)}, schema_updated_at = ${now},
      total_row_count = ${data.total_row_count ?? null}, total_row_count_exact = ${data.total_row_count === undefined ? null : (data.total_row_count_exact ?? false)}
    where id = ${ds.id} and organization_id = ${job.organizationId}`;
  return storeResult(deps, job, SCHEMA_FIELDS, 1, bytes.length, now);
}

/** The result row and the final status, together (the chunks are already written). */
async function storeResult(
  deps: RunDeps,
  job: ExecutionJob,
  fields: ResultField[],
  rowCount: number,
  sizeInBytes: number,
  now = new Date(),
  object: StoredObject | null = null,
): Promise<ExecutionOutcome> {
  const id = job.executionId;
  const expires = new Date(now.getTime() + EXECUTION_TTL_MS);
  const dataKey = makeDataKey(deps.env.REGION, job.organizationId, id, (await sha256Hex(`${id}:${job.paramsHash}`)).slice(0, 16));
  // (The fields go as a JSON parameter: a string cast to json would be encoded twice by postgres.js.)
  await deps.sql.begin(async (tx) => {
    const [mine] = await tx`update executions set execution_status = 'success', completed_at = now(), updated_at = now(), error_message = null,
      result_columns = ${fields.length}, result_rows = ${rowCount}, result_size = ${sizeInBytes} where id = ${id} and execution_status = 'running'
      returning id`;
    // Ended meanwhile (cancelled while the last chunk was written, written off by a sweep): keep that ending.
    if (!mine) throw new ConnectorError('cancelled', 'The execution ended before its result was stored.');
    await tx`insert into results (execution_id, organization_id, data_key, fields, row_count, size_in_bytes, time_zone, data_timestamp, expires_at, stored_object)
      values (${id}, ${job.organizationId}, ${dataKey}, ${deps.sql.json(fields as never)}, ${rowCount}, ${sizeInBytes},
              ${job.resultTimeZone}, ${now}, ${expires}, ${object ? deps.sql.json(object as never) : null})`;
  });
  return { executionId: id, status: 'success', dataKey, rowCount, errorMessage: null };
}
