import { sql } from 'drizzle-orm';
import { bigint, customType, index, integer, json, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import type { ResultField } from '@cairn/core';
import { createdAt, orgId, ts, updatedAt } from './common.ts';
import { organizations } from './organizations.ts';
import { datasources } from './datasources.ts';

export const EXECUTION_STATUSES = [
  'starting',
  'running',
  'waiting',
  'scheduled',
  'cancelled',
  'success',
  'query_error',
  'timed_out',
  'internal_error',
  'internal_timeout',
] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
export const FINISHED_STATUSES: readonly ExecutionStatus[] = ['cancelled', 'success', 'query_error', 'timed_out', 'internal_error', 'internal_timeout'];

export const executions = pgTable(
  'executions',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    datasource_id: text().references(() => datasources.id, { onDelete: 'cascade' }),
    execution_type: text().$type<'sql_query' | 'sql_filter' | 'sql_alert' | 'almanach_query' | 'export_query'>().notNull(),
    execution_status: text().$type<ExecutionStatus>().notNull().default('starting'),
    report_id: text(),
    filter_id: text(),
    sql_alert_id: text(),
    sql_query: text().notNull(),
    parameters: jsonb(),
    /** Hash of (source, parameters): finds a reusable result for the same report and parameters. */
    params_hash: text(),
    error_message: text(),
    result_columns: integer(),
    result_rows: bigint({ mode: 'number' }),
    result_size: bigint({ mode: 'number' }),
    created_by: text(),
    started_at: ts(),
    completed_at: ts(),
    /**
     * While unfinished: until when the runtime that runs or queues it vouches for it (the gate renews it
     * every few seconds). Past it the execution is written off as internal_error when read (migration 0008).
     */
    lease_expires_at: ts().default(sql`now() + interval '1 minute'`),
    /** Executions and their data are kept 24 hours. */
    expires_at: ts().notNull(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [
    index('executions_org_idx').on(t.organization_id, t.created_at),
    index('executions_hash_idx').on(t.organization_id, t.params_hash),
    index('executions_lease_idx').on(t.lease_expires_at).where(sql`${t.execution_status} in ('starting', 'running', 'waiting', 'scheduled')`),
  ],
);

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });

/** A stored result: its fields and metadata; the rows live in result_chunks. */
export const results = pgTable('results', {
  execution_id: text()
    .primaryKey()
    .references(() => executions.id, { onDelete: 'cascade' }),
  organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
  data_key: text().notNull(),
  // json, not jsonb: the fields keep the key order the data server sends out.
  fields: json().$type<ResultField[]>().notNull(),
  row_count: bigint({ mode: 'number' }).notNull(),
  size_in_bytes: bigint({ mode: 'number' }).notNull(),
  time_zone: text().notNull().default('UTC'),
  data_timestamp: ts().notNull(),
  expires_at: ts().notNull(),
  // Where the rows are when they went to the region's R2 bucket (D55); null: in result_chunks.
  stored_object: jsonb().$type<{ key: string; chunks: [number, number][] }>(),
});

/**
 * Rows of a result, in order, as chunks of JSON text: each chunk holds comma-separated row arrays
 * (`[1,"a"],[2,"b"]`), so a data server streams a result by concatenating chunks, never parsing rows.
 */
export const resultChunks = pgTable(
  'result_chunks',
  {
    execution_id: text()
      .notNull()
      .references(() => executions.id, { onDelete: 'cascade' }),
    seq: integer().notNull(),
    rows: integer().notNull(),
    data: bytea().notNull(),
  },
  (t) => [primaryKey({ columns: [t.execution_id, t.seq] })],
);
