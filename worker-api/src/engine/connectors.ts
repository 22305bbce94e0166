import postgres from 'postgres';
import { ApiError, decryptSecret, isDatabaseUnavailable } from '@cairn/core';
import type { datasources } from '@cairn/db';
import type { ServiceContext } from '../lib/context.ts';
import { pgDataType } from './types.ts';
import { ResultBuilder } from './result.ts';

type DatasourceRow = typeof datasources.$inferSelect;

const STATEMENT_TIMEOUT_MS = 120_000;
const POSTGRES_FAMILY = new Set(['postgres', 'redshift']);

export interface QueryRun {
  builder: ResultBuilder;
}

/** Errors the database reports about the SQL itself: the user's mistake, a 422, not a 500. */
function queryError(err: unknown): ApiError {
  const e = err as { message?: string; code?: string; position?: string };
  if (e.code === '57014') return new ApiError('query_error', 'The query was cancelled: it ran longer than the statement timeout.');
  const where = e.position ? ` (at character ${e.position})` : '';
  return new ApiError('query_error', `${e.message ?? 'The query failed'}${where}`, {
    source: { pointer: '/data/attributes/sql_query' },
    ...(e.code ? { meta: { sqlstate: e.code } } : {}),
  });
}

const isSqlError = (err: unknown) => typeof (err as { code?: unknown }).code === 'string' && /^[0-9A-Z]{5}$/.test((err as { code: string }).code);

async function collect(tx: postgres.TransactionSql | postgres.Sql, text: string, values: unknown[]): Promise<ResultBuilder> {
  const result = await tx.unsafe(text, values as postgres.ParameterOrJSON<never>[], { prepare: false }).values();
  const builder = new ResultBuilder(result.columns.map((c) => ({ name: c.name, type: pgDataType(c.type) })));
  for (const row of result) builder.add(row as unknown[]);
  builder.flush();
  return builder;
}

/**
 * Runs one compiled query on a datasource and returns its rows as a result under construction.
 * The sample datasource runs on Cairn's own database, inside a read-only transaction as the
 * `cairn_sample_reader` role with `search_path = sample_shop`, so it can only read the sample shop.
 */
export async function runOnDatasource(ctx: ServiceContext, ds: DatasourceRow, text: string, values: unknown[]): Promise<ResultBuilder> {
  if (!ds.enabled) throw new ApiError('invalid_state', `Datasource "${ds.name}" is disabled.`);
  try {
    if (ds.is_sample) {
      return await ctx.direct().sql.begin(async (tx) => {
        await tx.unsafe('SET TRANSACTION READ ONLY');
        await tx.unsafe('SET LOCAL ROLE cairn_sample_reader');
        await tx.unsafe('SET LOCAL search_path = sample_shop');
        await tx.unsafe(`SET LOCAL statement_timeout = ${STATEMENT_TIMEOUT_MS}`);
        return collect(tx, text, values);
      }) as ResultBuilder;
    }
    if (POSTGRES_FAMILY.has(ds.database_type) && ds.connection_mode === 'direct') {
      const password = ds.password_encrypted ? await decryptSecret(ds.password_encrypted, ctx.env.SECRET_KEY) : undefined;
      const client = postgres({
        host: ds.host ?? undefined, port: ds.port ?? 5432, user: ds.username ?? undefined, password,
        database: ds.database ?? undefined, max: 1, fetch_types: false, connect_timeout: 10,
        ssl: ds.require_ssl ? (ds.verify_ssl ? 'verify-full' : 'require') : false,
        connection: { statement_timeout: STATEMENT_TIMEOUT_MS, application_name: 'cairn' },
        onnotice: () => {},
      });
      try {
        return await client.begin(async (tx) => {
          await tx.unsafe('SET TRANSACTION READ ONLY');
          if (ds.default_schema_name) await tx.unsafe('SELECT set_config($1, $2, true)', ['search_path', ds.default_schema_name]);
          return collect(tx, text, values);
        }) as ResultBuilder;
      } finally {
        ctx.waitUntil(client.end({ timeout: 2 }));
      }
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (isSqlError(err) && !isDatabaseUnavailable(err)) throw queryError(err);
    // The sample datasource is Cairn's own database: its outage is ours (503). An analyst's database
    // that cannot be reached is a state of that datasource, reported with the driver's words.
    if (!ds.is_sample && err instanceof Error) {
      throw new ApiError('invalid_state', `Cannot reach datasource "${ds.name}": ${err.message}`);
    }
    throw err;
  }
  throw new ApiError(
    'invalid_state',
    `Datasources of type "${ds.database_type}" (${ds.connection_mode}) cannot run queries yet; a driver for it is on the way.`,
  );
}
