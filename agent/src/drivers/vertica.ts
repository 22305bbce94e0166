import type { AgentDatasource } from '@cairn/core/agent-protocol';
import {
  AgentFailure,
  CONNECT_TIMEOUT_MS,
  connectClient,
  messageOf,
  testByVersion,
  type Driver,
  type ResultOut,
  type RunRequest,
  type SchemaOptions,
  type SchemaRow,
} from './driver.ts';
import { Kind, verticaColumn, verticaDataType } from './other-types.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- vertica-nodejs ships no types; loaded on demand and typed loosely here */
let loaded: Promise<any> | null = null;
/** vertica-nodejs (OpenText's driver, pure JavaScript, node-postgres' API): loaded only when a Vertica datasource runs. */
const vertica = () =>
  (loaded ??= Promise.all([import('vertica-nodejs'), import('v-protocol/dist/parser.js')]).then(([m, p]: any[]) => {
    guardParser((p.default ?? p).Parser);
    return m.default ?? m;
  }));

/**
 * v-protocol's parser throws on a message it does not know, inside the socket's 'data' handler, which
 * would end the whole agent (seen against a PostgreSQL server on a Vertica datasource's port). The
 * throw is turned into an error message of that connection instead, which fails its connect or query.
 */
function guardParser(Parser: any): void {
  if (Parser.prototype.cairnGuarded) return;
  const parse = Parser.prototype.parse;
  Parser.prototype.parse = function guarded(this: unknown, buffer: unknown, callback: (msg: unknown) => void) {
    try {
      return parse.call(this, buffer, callback);
    } catch (err) {
      const msg = Object.assign(new Error(`the server did not answer in Vertica's protocol (${messageOf(err)})`), { name: 'error' });
      callback(msg);
    }
  };
  Parser.prototype.cairnGuarded = true;
}

/** Every value as the server's text (as the agent's Postgres driver): the API encodes it by the column's kind. */
const RAW = { getTypeParser: () => (v: string) => v };
const portOf = (ds: AgentDatasource) => ds.port ?? 5433;
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

function config(ds: AgentDatasource) {
  return {
    host: ds.host,
    port: portOf(ds),
    user: ds.user,
    password: ds.password ?? '',
    database: ds.database || undefined,
    tls_mode: ds.require_ssl ? (ds.verify_ssl ? 'verify-full' : 'require') : 'disable',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    client_label: 'cairn-agent',
    types: RAW,
  };
}

async function open(ds: AgentDatasource): Promise<any> {
  const v = await vertica();
  return connectClient(ds, portOf(ds), new v.Client(config(ds)));
}

/**
 * Vertica through vertica-nodejs (wired and type-mapped; not proven against a Vertica server here — see
 * the docs). A run makes the session read-only, caps its run time (RUNTIMECAP) and sets the time zone, then
 * streams the rows with the socket paused while the reader is behind; cancel is the protocol's cancel request.
 */
export const verticaDriver: Driver = {
  async run(ds, req: RunRequest, out: ResultOut, signal: AbortSignal) {
    const v = await vertica();
    const client = await open(ds);
    let cancelled = false;
    let query: any = null;
    const onAbort = () => {
      cancelled = true;
      if (query) new v.Client(config(ds)).cancel(client, query);
    };
    try {
      await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
      await client.query(`SET SESSION RUNTIMECAP ${literal(`${Math.max(1, Math.ceil(req.timeoutMs / 1000))} seconds`)}`);
      await client.query(`SET TIME ZONE TO ${literal(req.timeZone)}`);
      if (ds.default_schema) await client.query(`SET SEARCH_PATH TO ${ident(ds.default_schema)}, public`);
      if (signal.aborted) throw new AgentFailure('cancelled', 'The query was cancelled.');
      signal.addEventListener('abort', onAbort, { once: true });
      await new Promise<void>((resolve, reject) => {
        const stream = client.connection.stream as NodeJS.ReadableStream;
        let kinds: number[] | null = null;
        const describe = (fields: { name: string; dataTypeID: number }[]) => {
          if (kinds) return;
          const cols = fields.map((f) => verticaColumn(f.name, f.dataTypeID));
          kinds = cols.map((c) => (c.family === 'other' ? c.kind : Kind.Other));
          out.columns(cols);
        };
        query = client.query(new v.Query({ text: req.text, values: req.values, rowMode: 'array', types: RAW }));
        query.on('row', (row: (string | null)[], result?: { fields: { name: string; dataTypeID: number }[] }) => {
          describe(result?.fields ?? []);
          if (!out.row(row)) {
            stream.pause();
            void out.drained().then(() => stream.resume());
          }
        });
        query.on('end', (result: { fields?: { name: string; dataTypeID: number }[] }) => {
          describe(result?.fields ?? []);
          resolve();
        });
        query.on('error', reject);
      });
    } catch (err) {
      if (err instanceof AgentFailure) throw err;
      const msg = messageOf(err);
      if (cancelled) throw new AgentFailure('cancelled', 'The query was cancelled.');
      // Vertica's message when RUNTIMECAP stops a statement.
      if (/run ?time ?cap|exceeded run time/i.test(msg)) throw new AgentFailure('timed_out', msg);
      throw new AgentFailure('query_error', msg);
    } finally {
      signal.removeEventListener('abort', onAbort);
      await client.end().catch(() => {});
    }
  },

  test: (ds) => testByVersion(ds, open),

  async schema(ds, opts: SchemaOptions) {
    const client = await open(ds);
    try {
      let wanted = opts.included_schemas?.length ? opts.included_schemas : null;
      if (opts.name) wanted = wanted && !wanted.includes(opts.name) ? [] : [opts.name];
      const res = await client.query({
        text: `select table_schema, table_name, column_name, data_type, data_type_id
                 from v_catalog.columns
                where not is_system_table
                order by table_schema, table_name, ordinal_position`,
        rowMode: 'array',
      });
      const rows: SchemaRow[] = (res.rows as unknown[][])
        .filter((r) => !wanted || wanted.includes(String(r[0])))
        .map((r) => [String(r[0]), String(r[1]), String(r[2]), String(r[3]), verticaDataType(Number(r[4])), null]);
      return { rows, exact: false };
    } catch (err) {
      throw err instanceof AgentFailure ? err : new AgentFailure('query_error', messageOf(err));
    } finally {
      await client.end().catch(() => {});
    }
  },
};
