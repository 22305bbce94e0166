import type { DataType } from '@cairn/core';
import type { ResultSummary, RowSink } from '../result.ts';
import { Kind, type EncodedColumn } from '../types.ts';
import type { CancelHandle, ConnectionSettings, ConnectionTestResult, Connector, Query, RunOptions, SchemaData, SchemaOptions } from './connector.ts';
import { ConnectorError, cancelled } from './errors.ts';
import { basicAuth, baseUrl, connectionTestFailure, unreachable, type Fetcher } from './http-common.ts';
import { base64Bytes, jsonOf, pollDelay, refuseBoundValues, runStatement, schemaFromRows, sleep, smallRows, type StatementContext } from './statement-run.ts';

interface ColumnInfo {
  name: string;
  type_name: string;
  type_text?: string;
}
interface Chunk {
  data_array?: (string | null)[][];
  next_chunk_index?: number;
  next_chunk_internal_link?: string;
}
interface StatementResponse {
  statement_id: string;
  status: { state: string; error?: { error_code?: string; message?: string } };
  manifest?: { schema?: { columns?: ColumnInfo[] }; total_chunk_count?: number };
  result?: Chunk;
}

function classify(typeName: string): [DataType, Kind] {
  switch (typeName.toUpperCase()) {
    case 'BOOLEAN':
      return ['Boolean', Kind.Bool];
    case 'BYTE':
    case 'SHORT':
    case 'INT':
      return ['Integer', Kind.Int];
    case 'LONG':
      return ['BigInt', Kind.BigInt];
    case 'FLOAT':
    case 'DOUBLE':
      return ['Float', Kind.Float];
    case 'DECIMAL':
      return ['Float', Kind.Decimal];
    case 'STRING':
    case 'CHAR':
      return ['String', Kind.Text];
    case 'BINARY':
      return ['Binary', Kind.Binary];
    case 'DATE':
      return ['Date', Kind.Date];
    case 'TIMESTAMP':
    case 'TIMESTAMP_NTZ':
      return ['DateTime', Kind.DateTime];
    case 'ARRAY':
      return ['Array<Other>', Kind.Json];
    case 'MAP':
    case 'STRUCT':
      return ['Record', Kind.Json];
    default:
      return ['Other', Kind.Other];
  }
}

function databricksColumn(c: ColumnInfo): EncodedColumn {
  const [data_type, kind] = classify(c.type_name);
  return { name: c.name, data_type, kind, db_type: c.type_text ?? c.type_name };
}

/** information_schema full_data_type / data_type (`bigint`, `decimal(10,2)`, `array<string>`) → data type. */
function databricksTypeToDataType(type: string): DataType {
  const t = type
    .toUpperCase()
    .replace(/[<(].*$/s, '')
    .trim();
  const alias: Record<string, string> = { BIGINT: 'LONG', INTEGER: 'INT', SMALLINT: 'SHORT', TINYINT: 'BYTE', VARCHAR: 'STRING' };
  return classify(alias[t] ?? t)[0];
}

function cell(v: string | null, c: EncodedColumn): unknown {
  if (v === null || v === undefined) return null;
  if (c.kind === Kind.Bool) return v === 'true';
  if (c.kind === Kind.Binary) return base64Bytes(v);
  if (c.kind === Kind.Float) return Number(v);
  return v;
}

/** The SQL warehouse id of an HTTP path (`/sql/1.0/warehouses/<id>`, `/sql/1.0/endpoints/<id>`), or null. */
function warehouseIdOf(httpPath: string): string | null {
  return /^\/sql\/1\.0\/(?:warehouses|endpoints)\/([A-Za-z0-9]+)\/?$/.exec(httpPath)?.[1] ?? null;
}

/**
 * Databricks through the SQL Statement Execution API 2.0 (`fetch`; runs in workerd). The datasource's
 * `host` is the workspace, `databricks_http_path` names the SQL warehouse (`/sql/1.0/warehouses/<id>`;
 * the API runs on SQL warehouses only, so a cluster's path is refused with a message that says so),
 * `database` the catalog and `default_schema_name` the schema. Authentication per
 * `databricks_auth_mode`: `pat` sends the `password` (a personal access token) as a Bearer token;
 * `oauth_m2m` exchanges `username` (the service principal's client id) and `password` (its OAuth
 * secret) for a token at the workspace's `/oidc/v1/token` (client credentials, scope all-apis) and
 * says so plainly when `databricks_auth_expires_at` has passed. Results come INLINE in JSON_ARRAY
 * chunks (every value a string, the chunks read in order by their internal links); the statement is
 * submitted with `wait_timeout` 0s and polled. The API has no per-statement timeout: the run's guard
 * cancels the statement when the statement timeout passes. Cancel is POST …/statements/{id}/cancel.
 * Bound values are refused (D48).
 *
 * Proven against recorded exchanges that follow the published API (warehouses.test.ts),
 * not against a real workspace: none can be reached from the test machines.
 */
export class DatabricksConnector implements Connector {
  readonly label: string;
  private readonly base: string;
  private token: { value: string; until: number } | null = null;

  constructor(
    private readonly s: ConnectionSettings,
    private readonly preflight?: () => Promise<void>,
    private readonly fetcher: Fetcher = (input, init) => fetch(input, init),
    private readonly pause: (ms: number) => Promise<void> = sleep,
  ) {
    this.label = `${s.host}:${s.port}`;
    this.base = baseUrl(s.host, s.port, true).replace(/:443$/, '');
  }

  private async bearer(signal?: AbortSignal): Promise<string> {
    const c = this.s.cloud ?? {};
    if (!this.s.password)
      throw new ConnectorError('connection_error', `Could not connect to ${this.label}: the datasource has no token or OAuth secret (password).`);
    if (c.databricksAuthMode !== 'oauth_m2m') return this.s.password;
    if (c.databricksAuthExpiresAt && c.databricksAuthExpiresAt.getTime() < Date.now()) {
      throw new ConnectorError(
        'connection_error',
        `Could not connect to ${this.label}: the OAuth secret expired on ${c.databricksAuthExpiresAt.toISOString()} (databricks_auth_expires_at); create a new secret for the service principal and save it here.`,
      );
    }
    if (this.token && this.token.until > Date.now()) return this.token.value;
    let res: Response;
    try {
      res = await this.fetcher(`${this.base}/oidc/v1/token`, {
        method: 'POST',
        signal,
        headers: { authorization: basicAuth(this.s.user, this.s.password), 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&scope=all-apis',
      });
    } catch (err) {
      throw unreachable(this.label, err);
    }
    const { json, text } = await jsonOf(res);
    if (res.status !== 200 || !json?.access_token) {
      throw new ConnectorError(
        'connection_error',
        `Could not connect to ${this.label}: Databricks refused the OAuth client ${this.s.user} (HTTP ${res.status}: ${json?.error_description ?? json?.error ?? text.slice(0, 300)}).`,
      );
    }
    this.token = { value: json.access_token, until: Date.now() + Math.max(60, Number(json.expires_in ?? 3600) - 300) * 1000 };
    return this.token.value;
  }

  private async request(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<any> {
    const token = await this.bearer(signal);
    let res: Response;
    try {
      res = await this.fetcher(`${this.base}${path}`, {
        method,
        signal,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'cairn/1.0' },
      });
    } catch (err) {
      throw unreachable(this.label, err);
    }
    const { json, text } = await jsonOf(res);
    if (res.status === 200 && json) return json;
    const message = json?.message ?? text.trim().slice(0, 300);
    if (res.status === 401 || res.status === 403) {
      throw new ConnectorError(
        'connection_error',
        `Could not connect to ${this.label}: Databricks refused the login (HTTP ${res.status}${message ? `: ${message}` : ''}).`,
        { code: json?.error_code },
      );
    }
    if (res.status === 400 && json?.error_code) throw new ConnectorError('query_error', message, { code: json.error_code });
    throw new ConnectorError(
      'connection_error',
      `Could not connect to ${this.label}: it answered HTTP ${res.status}${message ? ` (${message})` : ''}. Is this the Databricks workspace host?`,
      { code: json?.error_code },
    );
  }

  private execute = async (sql: string, ctx: StatementContext): Promise<void> => {
    await this.preflight?.();
    const warehouse = warehouseIdOf(this.s.cloud?.databricksHttpPath ?? '');
    if (!warehouse) {
      throw new ConnectorError(
        'connection_error',
        `Databricks at ${this.label}: "${this.s.cloud?.databricksHttpPath ?? ''}" is not the HTTP path of a SQL warehouse (/sql/1.0/warehouses/<id>); Cairn runs statements on SQL warehouses only (the Statement Execution API), not on clusters.`,
      );
    }
    const body: Record<string, unknown> = {
      statement: sql,
      warehouse_id: warehouse,
      wait_timeout: '0s',
      on_wait_timeout: 'CONTINUE',
      disposition: 'INLINE',
      format: 'JSON_ARRAY',
    };
    if (this.s.database) body.catalog = this.s.database;
    if (this.s.defaultSchema) body.schema = this.s.defaultSchema;
    let st = (await this.request('POST', '/api/2.0/sql/statements', body, ctx.signal)) as StatementResponse;
    if (!st.statement_id) throw new ConnectorError('connection_error', `Could not connect to ${this.label}: the answer has no statement id.`);
    await ctx.handle({ family: 'databricks', statement_id: st.statement_id });
    for (let n = 0; st.status.state === 'PENDING' || st.status.state === 'RUNNING'; n++) {
      if (ctx.stopped()) throw new Error('stopped');
      await this.pause(pollDelay(n));
      st = (await this.request('GET', `/api/2.0/sql/statements/${encodeURIComponent(st.statement_id)}`, undefined, ctx.signal)) as StatementResponse;
    }
    if (st.status.state === 'CANCELED' || st.status.state === 'CLOSED') throw cancelled();
    if (st.status.state !== 'SUCCEEDED') {
      const e = st.status.error ?? {};
      throw new ConnectorError('query_error', e.message ?? `The statement ended as ${st.status.state}.`, { code: e.error_code });
    }
    const columns = (st.manifest?.schema?.columns ?? []).map(databricksColumn);
    await ctx.columns(columns);
    let chunk: Chunk | undefined = st.result;
    while (chunk) {
      await ctx.rows((chunk.data_array ?? []).map((r) => r.map((v, i) => cell(v, columns[i]!))));
      const link = chunk.next_chunk_internal_link;
      if (!link) break;
      if (ctx.stopped()) throw new Error('stopped');
      if (!link.startsWith(`/api/2.0/sql/statements/${st.statement_id}/result/chunks/`)) {
        throw new ConnectorError('connection_error', `Could not connect to ${this.label}: an unexpected chunk link ${link}.`);
      }
      chunk = (await this.request('GET', link, undefined, ctx.signal)) as Chunk;
    }
  };

  run(query: Query, sink: RowSink, opts: RunOptions = {}): Promise<ResultSummary> {
    refuseBoundValues('Databricks', query);
    return runStatement(this.label, query, sink, opts, (h) => this.cancel(h), this.execute);
  }

  async cancel(handle: CancelHandle): Promise<boolean> {
    if (handle.family !== 'databricks' || !/^[0-9a-f-]{8,64}$/i.test(handle.statement_id)) return false;
    await this.request('POST', `/api/2.0/sql/statements/${encodeURIComponent(handle.statement_id)}/cancel`, {});
    return true;
  }

  async testConnection(): Promise<ConnectionTestResult> {
    try {
      const [row] = await smallRows(this.label, this.execute, 'SELECT version()');
      return { status: 'ok', error_message: null, server_version: row?.[0] == null ? null : String(row[0]) };
    } catch (err) {
      return connectionTestFailure(err, this.label);
    }
  }

  async schema(opts: SchemaOptions = {}): Promise<SchemaData> {
    if (!this.s.database) {
      throw new ConnectorError(
        'connection_error',
        'Databricks datasources name their catalog in "database"; this one has none, so there is no schema to read.',
      );
    }
    const lit = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
    const wanted = opts.name ? [opts.name] : opts.included_schemas?.length ? opts.included_schemas : null;
    const where = wanted ? `table_schema IN (${wanted.map(lit).join(', ')})` : "table_schema <> 'information_schema'";
    const rows = await smallRows(
      this.label,
      this.execute,
      `SELECT table_schema, table_name, column_name, full_data_type FROM \`${this.s.database.replace(/`/g, '``')}\`.information_schema.columns WHERE ${where} ORDER BY table_schema, table_name, ordinal_position`,
    );
    // Row counts: Unity Catalog keeps none that can be read without scanning, so none are given.
    return { schemas: schemaFromRows(rows, databricksTypeToDataType) };
  }
}
