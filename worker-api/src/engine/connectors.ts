import type { ResultField } from '@cairn/core';
import type { ServiceContext } from '../lib/context.ts';
import { collect, connectorFor, type ConnectorEnv, type DatasourceConfig, type RunOptions } from './connectors/index.ts';

import { targetPolicy } from './target-policy.ts';

export * from './connectors/index.ts';

/** The connector environment of a request: its secret key, the sample database, waitUntil. */
export function connectorEnv(ctx: ServiceContext): ConnectorEnv {
  return { secretKey: ctx.env.SECRET_KEY, sampleDb: ctx.env.SAMPLE_DB, closer: (close) => ctx.waitUntil(close()), policy: targetPolicy(ctx.env) };
}

/** A finished run with its rows in memory, as `engine/execute.ts` stores it. */
export interface BuiltResult {
  chunks: { rows: number; data: string }[];
  rowCount: number;
  sizeInBytes: number;
  fields(): ResultField[];
}

/**
 * Runs one compiled query on a datasource and returns its rows in chunks. Kept for the current
 * caller; new code streams with `connectorFor(ds, env).run(query, sink, opts)` instead of holding
 * the whole result. The session time zone defaults to the datasource's data time zone. Errors:
 * ConnectorError (an ApiError: query_error 422 for the SQL, a timeout or a cancel, invalid_state 422
 * for an unreachable database; `executionStatusOf(err)` gives the execution status) or invalid_state
 * for a type without a driver.
 */
export async function runOnDatasource(
  ctx: ServiceContext, ds: DatasourceConfig & { data_time_zone?: string | null }, text: string, values: unknown[], opts: RunOptions = {},
): Promise<BuiltResult> {
  const connector = await connectorFor(ds, connectorEnv(ctx));
  const result = await collect(connector, text, values, { timeZone: ds.data_time_zone ?? undefined, ...opts });
  return { chunks: result.chunks, rowCount: result.rowCount, sizeInBytes: result.sizeInBytes, fields: () => result.fields };
}
