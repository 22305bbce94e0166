import { sql, type SQL } from 'drizzle-orm';
import { newId } from '@cairn/core';
import type { ExecutionStatus } from '@cairn/db';
import { EXECUTION_TTL_MS } from './ttl.ts';
import type { ExecutionJob } from './job.ts';

export type ExecutionType = 'sql_query' | 'sql_filter' | 'sql_alert' | 'almanach_query' | 'export_query';

/** One statement with positional parameters (`$1`…): postgres.js `unsafe`, a request's pooled sender, a drizzle transaction. */
export type Statement = (text: string, params: unknown[]) => Promise<unknown>;

/** What a new executions row says: what runs, for what, with which result identity (engine/identity.ts). */
export interface NewExecution {
  id?: string;
  organizationId: string;
  datasourceId: string;
  type: ExecutionType;
  /** `starting` for a run handed to a gate; `success` for a stored copy written with its result. */
  status?: Extract<ExecutionStatus, 'starting' | 'success'>;
  source?: { report_id?: string | null; filter_id?: string | null; sql_alert_id?: string | null };
  /** The SQL as written (before compiling), for GET /executions. */
  sql: string;
  parameters: object;
  paramsHash: string;
  createdBy: string | null;
}

/*
 * Every executions row is inserted by this one statement, whoever runs it (a request, the dashboard
 * status object, the cron, an alert): the parameters are text and numbers only (JSON as text, the
 * expiry as seconds from now), so the same statement works over postgres.js, the DbPool sender and
 * drizzle, whose serializers differ for dates and JSON. The JSON goes in as `text` and is cast on the
 * server: typed as jsonb, a plain postgres.js client (the Durable Objects') JSON-encoded the text a
 * second time and stored a JSON string.
 */
const INSERT = `insert into executions (id, organization_id, datasource_id, execution_type, execution_status, report_id, filter_id,
    sql_alert_id, sql_query, parameters, params_hash, created_by, expires_at)
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text::jsonb, $11, $12, now() + make_interval(secs => $13::float8))`;

/** Inserts the execution's row (status starting unless said) and returns its id. */
export async function recordExecution(run: Statement, e: NewExecution): Promise<string> {
  const id = e.id ?? newId('execution');
  await run(INSERT, [
    id,
    e.organizationId,
    e.datasourceId,
    e.type,
    e.status ?? 'starting',
    e.source?.report_id ?? null,
    e.source?.filter_id ?? null,
    e.source?.sql_alert_id ?? null,
    e.sql,
    JSON.stringify(e.parameters ?? {}),
    e.paramsHash,
    e.createdBy,
    EXECUTION_TTL_MS / 1000,
  ]);
  return id;
}

/** A drizzle database or transaction as a Statement (its `$n` placeholders bound as drizzle parameters). */
export function drizzleStatement(db: { execute(query: SQL): Promise<unknown> }): Statement {
  return (text, params) => {
    const parts = text.split(/\$(\d+)/);
    return db.execute(sql.join(parts.map((p, i) => (i % 2 ? sql`${params[Number(p) - 1]}` : sql.raw(p)))));
  };
}

/** The newest stored successful result of a query (by its identity) that has not expired. */
export interface StoredResult {
  executionId: string;
  dataKey: string;
  rowCount: number;
  /** When the data was read (ms since the epoch). */
  dataTimestamp: number;
  /** When its execution ended (ms since the epoch). */
  completedAt: number;
  timeZone: string;
}

/**
 * The one lookup of a reusable result: data calls take it when it is younger than their refresh rate,
 * the status object adopts it and judges its staleness itself (anchors included).
 */
export async function latestResult(run: Statement, organizationId: string, paramsHash: string): Promise<StoredResult | null> {
  const rows = (await run(
    `select e.id, r.data_key, r.row_count::float8 as row_count, r.time_zone,
        (extract(epoch from r.data_timestamp) * 1000)::float8 as data_ms, (extract(epoch from e.completed_at) * 1000)::float8 as completed_ms
      from executions e join results r on r.execution_id = e.id
     where e.organization_id = $1 and e.params_hash = $2 and e.execution_status = 'success' and r.expires_at > now()
     order by e.completed_at desc limit 1`,
    [organizationId, paramsHash],
  )) as Record<string, unknown>[];
  const row = rows[0];
  if (!row) return null;
  return {
    executionId: String(row.id),
    dataKey: String(row.data_key),
    rowCount: Number(row.row_count),
    timeZone: String(row.time_zone),
    dataTimestamp: Number(row.data_ms),
    completedAt: Number(row.completed_ms),
  };
}

/** The gate's job for execution `executionId` of a compiled query (the one shape every run path hands over). */
export function queryJob(
  at: { executionId: string; organizationId: string; datasourceId: string; maxConcurrent: number },
  compiled: { text: string; values: unknown[]; sessionTimeZone: string; timeZone: string },
  paramsHash: string,
): ExecutionJob {
  return {
    ...at,
    text: compiled.text,
    values: compiled.values,
    paramsHash,
    sessionTimeZone: compiled.sessionTimeZone,
    resultTimeZone: compiled.timeZone,
  };
}
