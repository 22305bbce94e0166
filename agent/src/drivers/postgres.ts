import pg from 'pg';
import type { AgentDatasource } from '@cairn/core/agent-protocol';
import { INFO_SCHEMA_COLUMNS, PG_SCHEMA_COLUMNS, wantedSchemas } from '@cairn/core/pg/schema-sql';
import {
  AgentFailure,
  CONNECT_TIMEOUT_MS,
  connectClient,
  connectionFailure,
  messageOf,
  testByVersion,
  type Driver,
  type ResultOut,
  type RunRequest,
  type SchemaOptions,
  type SchemaRow,
} from './driver.ts';

/** Every value as the server's text: the API encodes it exactly as its direct Postgres connector does. */
const RAW = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;
const CONNECT_CODES = new Set(['28P01', '28000', '3D000', '53300', '57P03']);

const portOf = (ds: AgentDatasource) => ds.port ?? (ds.database_type === 'redshift' ? 5439 : 5432);

function open(ds: AgentDatasource, timeoutMs?: number): Promise<pg.Client> {
  return connectClient(
    ds,
    portOf(ds),
    new pg.Client({
      host: ds.host,
      port: portOf(ds),
      user: ds.user,
      password: ds.password ?? '',
      database: ds.database || undefined,
      ssl: ds.require_ssl ? { rejectUnauthorized: ds.verify_ssl } : false,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: 'cairn-agent',
      types: RAW,
      ...(timeoutMs ? { statement_timeout: timeoutMs } : {}),
    }),
  );
}

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** postgres and redshift through node-postgres; the result streams with the socket paused while the reader is behind. */
export const postgresDriver: Driver = {
  async run(ds, req: RunRequest, out: ResultOut, signal: AbortSignal) {
    const client = await open(ds, req.timeoutMs);
    const pid = (client as unknown as { processID: number }).processID;
    let cancelled = false;
    const onAbort = () => {
      cancelled = true;
      void cancelBackend(ds, pid);
    };
    try {
      // Read-only like the API's direct connector (postgres.js `begin read only`) for both postgres and
      // redshift: a read-only transaction, and the statement sent over the extended protocol so that it
      // is one statement (no `commit; …` to leave the transaction).
      await client.query('BEGIN READ ONLY');
      await client.query(`SET TIME ZONE ${literal(req.timeZone)}`);
      if (ds.default_schema) await client.query(`SET search_path TO ${ident(ds.default_schema)}`);
      if (signal.aborted) throw new AgentFailure('cancelled', 'The query was cancelled.');
      signal.addEventListener('abort', onAbort, { once: true });
      await new Promise<void>((resolve, reject) => {
        const stream = (client as unknown as { connection: { stream: NodeJS.ReadableStream } }).connection.stream;
        let described = false;
        const describe = (fields: { name: string; dataTypeID: number }[]) => {
          if (described) return;
          described = true;
          out.columns(fields.map((f) => ({ family: 'postgres', name: f.name, oid: f.dataTypeID })));
        };
        const q = client.query(new pg.Query({ text: req.text, values: req.values, rowMode: 'array', types: RAW, queryMode: 'extended' } as pg.QueryConfig));
        q.on('row', (row: unknown[], result?: { fields: pg.FieldDef[] }) => {
          describe(result?.fields ?? []);
          if (!out.row(row as (string | null)[])) {
            stream.pause();
            void out.drained().then(() => stream.resume());
          }
        });
        q.on('end', (result: { fields?: pg.FieldDef[] }) => {
          describe(result?.fields ?? []);
          resolve();
        });
        q.on('error', reject);
      });
    } catch (err) {
      if (err instanceof AgentFailure) throw err;
      const code = (err as { code?: string }).code;
      if (code === '57014') {
        throw cancelled ? new AgentFailure('cancelled', 'The query was cancelled.') : new AgentFailure('timed_out', messageOf(err));
      }
      if (code && CONNECT_CODES.has(code)) throw connectionFailure(ds, portOf(ds), err);
      throw new AgentFailure(cancelled ? 'cancelled' : 'query_error', messageOf(err));
    } finally {
      signal.removeEventListener('abort', onAbort);
      await client.end().catch(() => {});
    }
  },

  test: (ds) => testByVersion(ds, open),

  async schema(ds, opts: SchemaOptions) {
    const client = await open(ds, 120_000);
    try {
      const wanted = wantedSchemas(opts);
      // The API's own schema statements (core), read as arrays in their column order.
      const sql = ds.database_type === 'postgres' ? PG_SCHEMA_COLUMNS : INFO_SCHEMA_COLUMNS;
      const res = await client.query({ text: sql, values: ds.database_type === 'postgres' ? [wanted] : [], rowMode: 'array' });
      const rows: SchemaRow[] = [];
      for (const r of res.rows as (string | null)[][]) {
        if (wanted && !wanted.includes(r[0]!)) continue;
        const estimate = r[5] === null || r[5] === undefined ? null : Number(r[5]);
        rows.push([r[0]!, r[1]!, r[2]!, r[3]!, r[4]!, estimate !== null && estimate >= 0 ? Math.round(estimate) : null]);
      }
      return { rows, exact: false };
    } catch (err) {
      if (err instanceof AgentFailure) throw err;
      throw new AgentFailure('query_error', messageOf(err));
    } finally {
      await client.end().catch(() => {});
    }
  },
};

/** pg_cancel_backend from a second connection. */
async function cancelBackend(ds: AgentDatasource, pid: number) {
  const c = await open(ds).catch(() => null);
  if (!c) return;
  await c.query('select pg_cancel_backend($1)', [pid]).catch(() => {});
  await c.end().catch(() => {});
}
