import { SignJWT } from 'jose';
import type { DataType } from '@cairn/core';
import type { ResultSummary, RowSink } from '../result.ts';
import { Kind, type EncodedColumn } from '../types.ts';
import type { CancelHandle, ConnectionSettings, ConnectionTestResult, Connector, Query, RunOptions, SchemaData, SchemaOptions } from './connector.ts';
import { ConnectorError, cancelled } from './errors.ts';
import { connectionTestFailure, unreachable, type Fetcher } from './http-common.ts';
import { jsonOf, pollDelay, refuseBoundValues, runStatement, schemaFromRows, sleep, smallRows, type StatementContext } from './statement-run.ts';

/** Snowflake's codes for a statement stopped by its timeout, and for a cancelled one. */
const TIMEOUT_CODES = new Set(['000630']);
const CANCEL_CODES = new Set(['000604']);

interface RowType {
  name: string;
  type: string;
  scale?: number | null;
  precision?: number | null;
}

/** A Snowflake SQL API type (`fixed`, `text`, `timestamp_tz`, …) → data type and value kind. */
function snowflakeColumn(c: RowType): EncodedColumn {
  const t = c.type.toLowerCase();
  const fixedInt = t === 'fixed' && !c.scale;
  const map: Record<string, [DataType, Kind]> = {
    fixed: fixedInt ? ['BigInt', Kind.BigInt] : ['Float', Kind.Decimal],
    real: ['Float', Kind.Float],
    float: ['Float', Kind.Float],
    text: ['String', Kind.Text],
    boolean: ['Boolean', Kind.Bool],
    date: ['Date', Kind.Date],
    time: ['Time', Kind.Time],
    timestamp_ltz: ['DateTime', Kind.DateTime],
    timestamp_ntz: ['DateTime', Kind.DateTime],
    timestamp_tz: ['DateTime', Kind.DateTime],
    binary: ['Binary', Kind.Binary],
    variant: ['JSON', Kind.Json],
    object: ['Record', Kind.Json],
    array: ['Array<Other>', Kind.Json],
  };
  const [data_type, kind] = map[t] ?? ['Other', Kind.Other];
  const db_type = t === 'fixed' ? `NUMBER(${c.precision ?? 38},${c.scale ?? 0})` : t.toUpperCase();
  return { name: c.name, data_type, kind, db_type };
}

/** Snowflake's type names in information_schema (NUMBER, TEXT, TIMESTAMP_NTZ, …) → data type. */
function snowflakeTypeToDataType(type: string): DataType {
  const t = type.toUpperCase();
  if (t === 'NUMBER') return 'Float';
  if (/^(FLOAT|REAL|DOUBLE)/.test(t)) return 'Float';
  if (/^(TEXT|VARCHAR|CHAR|STRING)/.test(t)) return 'String';
  if (t === 'BOOLEAN') return 'Boolean';
  if (t === 'DATE') return 'Date';
  if (t === 'TIME') return 'Time';
  if (t.startsWith('TIMESTAMP')) return 'DateTime';
  if (t === 'BINARY') return 'Binary';
  if (t === 'VARIANT') return 'JSON';
  if (t === 'OBJECT') return 'Record';
  if (t === 'ARRAY') return 'Array<Other>';
  return 'Other';
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Epoch seconds with up to 9 decimals (`1709618828.500000000`) → `YYYY-MM-DD HH:MM:SS[.fff…]` in UTC. */
function epochText(seconds: string, offsetMinutes = 0): string {
  const [whole, frac = ''] = seconds.split('.');
  const d = new Date((Number(whole) + offsetMinutes * 60) * 1000);
  const f = frac.replace(/0+$/, '');
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${f ? `.${f}` : ''}`;
}

/**
 * A value as the SQL API writes it (every value is a string, spec "Handling the response") → what
 * ResultWriter.valueRow takes: DATE is days since the epoch, TIME seconds since midnight,
 * TIMESTAMP_NTZ/LTZ epoch seconds, TIMESTAMP_TZ epoch seconds and the offset in minutes plus 1440,
 * BINARY hex, VARIANT/OBJECT/ARRAY JSON text.
 */
function snowflakeValue(v: unknown, c: EncodedColumn): unknown {
  if (v === null || v === undefined) return null;
  const s = String(v);
  switch (c.db_type) {
    case 'BOOLEAN':
      return s === 'true' || s === '1';
    case 'DATE':
      return epochText(String(Number(s) * 86_400)).slice(0, 10);
    case 'TIME':
      return epochText(s).slice(11);
    case 'TIMESTAMP_NTZ':
    case 'TIMESTAMP_LTZ':
      return epochText(s);
    case 'TIMESTAMP_TZ': {
      const [secs, off] = s.split(' ');
      const minutes = Number(off ?? 1440) - 1440;
      const sign = minutes < 0 ? '-' : '+';
      return `${epochText(secs!, minutes)}${sign}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
    }
    case 'BINARY': {
      const out = new Uint8Array(s.length / 2);
      for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(i * 2, i * 2 + 2), 16);
      return out;
    }
    case 'REAL':
    case 'FLOAT':
      return Number(s);
    default:
      return s;
  }
}

function pemBody(pem: string): Uint8Array {
  const b64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Snowflake through its SQL API v2 (`fetch`; runs in workerd). The datasource's `snowflake_identifier`
 * names the account (`myorg-myaccount`, or a locator with `snowflake_region`), `username` the user,
 * `database` and `default_schema_name` the context, `snowflake_warehouse` the warehouse. The
 * `password` is either the user's private key (unencrypted PKCS#8 PEM, "-----BEGIN PRIVATE KEY-----":
 * key-pair authentication, a JWT signed with `jose` whose issuer carries the public key's SHA-256
 * fingerprint) or a programmatic access token. Each run is submitted asynchronously
 * (`async=true`), its statement handle polled until the answer is 200, then the result's partitions
 * are read one after the other. The statement timeout is the request's `timeout`; cancel is
 * POST …/statements/{handle}/cancel. Bound values are refused (D48).
 *
 * Proven against recorded exchanges that follow the published SQL API (warehouses.test.ts),
 * not against a real account: none can be reached from the test machines.
 */
export class SnowflakeConnector implements Connector {
  readonly label: string;
  private readonly base: string;
  private token: { value: string; until: number; type: string } | null = null;

  constructor(
    private readonly s: ConnectionSettings,
    private readonly preflight?: () => Promise<void>,
    private readonly fetcher: Fetcher = (input, init) => fetch(input, init),
    private readonly pause: (ms: number) => Promise<void> = sleep,
  ) {
    const id = (s.cloud?.snowflakeIdentifier ?? '').toLowerCase();
    const region = s.cloud?.snowflakeRegion;
    const host = id.includes('.') || !region ? `${id}.snowflakecomputing.com` : `${id}.${region.toLowerCase()}.snowflakecomputing.com`;
    this.base = `https://${host}`;
    this.label = host;
  }

  /** The Authorization header: a key-pair JWT (renewed before its hour runs out) or the access token. */
  private async auth(): Promise<{ authorization: string; type: string }> {
    const secret = this.s.password ?? '';
    if (!secret)
      throw new ConnectorError('connection_error', `Could not connect to ${this.label}: the datasource has no private key or access token (password).`);
    if (!secret.includes('PRIVATE KEY-----')) return { authorization: `Bearer ${secret}`, type: 'PROGRAMMATIC_ACCESS_TOKEN' };
    if (this.token && this.token.until > Date.now()) return { authorization: `Bearer ${this.token.value}`, type: this.token.type };
    if (secret.includes('ENCRYPTED PRIVATE KEY')) {
      throw new ConnectorError(
        'connection_error',
        `Could not connect to ${this.label}: the private key is encrypted; paste it unencrypted (openssl pkcs8 -topk8 -nocrypt).`,
      );
    }
    let key: CryptoKey;
    let fingerprint: string;
    try {
      key = await crypto.subtle.importKey('pkcs8', pemBody(secret), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['sign']);
      const jwk = (await crypto.subtle.exportKey('jwk', key)) as JsonWebKey;
      const pub = await crypto.subtle.importKey('jwk', { kty: 'RSA', n: jwk.n, e: jwk.e }, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['verify']);
      const spki = new Uint8Array((await crypto.subtle.exportKey('spki', pub)) as ArrayBuffer);
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', spki));
      fingerprint = btoa(String.fromCharCode(...digest));
    } catch (err) {
      throw new ConnectorError(
        'connection_error',
        `Could not connect to ${this.label}: the private key is not an RSA key in PKCS#8 PEM form (${(err as Error).message}).`,
      );
    }
    const account = (this.s.cloud?.snowflakeIdentifier ?? '').split('.')[0]!.toUpperCase();
    const user = this.s.user.toUpperCase();
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(`${account}.${user}.SHA256:${fingerprint}`)
      .setSubject(`${account}.${user}`)
      .setIssuedAt()
      .setExpirationTime('59m')
      .sign(key);
    this.token = { value: jwt, until: Date.now() + 50 * 60_000, type: 'KEYPAIR_JWT' };
    return { authorization: `Bearer ${jwt}`, type: 'KEYPAIR_JWT' };
  }

  private async request(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<{ status: number; json: any; text: string }> {
    const { authorization, type } = await this.auth();
    let res: Response;
    try {
      res = await this.fetcher(`${this.base}${path}`, {
        method,
        signal,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: {
          authorization,
          'x-snowflake-authorization-token-type': type,
          accept: 'application/json',
          'content-type': 'application/json',
          'user-agent': 'cairn/1.0',
        },
      });
    } catch (err) {
      throw unreachable(this.label, err);
    }
    const { text, json } = await jsonOf(res);
    if (res.status === 401 || res.status === 403) {
      throw new ConnectorError(
        'connection_error',
        `Could not connect to ${this.label}: Snowflake refused the login (HTTP ${res.status}: ${json?.message ?? text.slice(0, 300)}).`,
        { code: json?.code },
      );
    }
    if (res.status === 429 || res.status >= 500) {
      throw new ConnectorError(
        'connection_error',
        `Could not connect to ${this.label}: Snowflake answered HTTP ${res.status}${json?.message ? ` (${json.message})` : ''}.`,
      );
    }
    if (json === null || typeof json !== 'object') {
      throw new ConnectorError('connection_error', `Could not connect to ${this.label}: the answer (HTTP ${res.status}) is not Snowflake's SQL API.`);
    }
    return { status: res.status, json, text };
  }

  private errorOf(json: { code?: string; message?: string; sqlState?: string }): ConnectorError {
    const message = json.message ?? 'the statement failed';
    if (json.code && TIMEOUT_CODES.has(json.code)) return new ConnectorError('timed_out', message, { code: json.code });
    if (json.code && CANCEL_CODES.has(json.code)) return cancelled();
    // 390xxx: session and login problems (an unknown warehouse, a role or a database is a 422 of its own).
    if (json.code?.startsWith('390')) return new ConnectorError('connection_error', `Snowflake at ${this.label}: ${message}`, { code: json.code });
    return new ConnectorError('query_error', message, { code: json.code, sql_state: json.sqlState });
  }

  private execute = async (sql: string, ctx: StatementContext): Promise<void> => {
    await this.preflight?.();
    const c = this.s.cloud ?? {};
    const body: Record<string, unknown> = {
      statement: sql,
      timeout: Math.max(1, Math.ceil(ctx.timeoutMs / 1000)),
      parameters: { TIMEZONE: ctx.timeZone, QUERY_TAG: 'cairn' },
    };
    if (this.s.database) body.database = this.s.database;
    if (this.s.defaultSchema) body.schema = this.s.defaultSchema;
    if (c.snowflakeWarehouse) body.warehouse = c.snowflakeWarehouse;
    let answer = await this.request('POST', `/api/v2/statements?requestId=${crypto.randomUUID()}&async=true`, body, ctx.signal);
    const handle: string | undefined = answer.json.statementHandle;
    if (answer.status !== 200 && answer.status !== 202) throw this.errorOf(answer.json);
    if (!handle) throw new ConnectorError('connection_error', `Could not connect to ${this.label}: the answer has no statement handle.`);
    await ctx.handle({ family: 'snowflake', statement_handle: handle });
    for (let n = 0; answer.status === 202; n++) {
      if (ctx.stopped()) throw new Error('stopped');
      await this.pause(pollDelay(n));
      answer = await this.request('GET', `/api/v2/statements/${encodeURIComponent(handle)}`, undefined, ctx.signal);
      if (answer.status !== 200 && answer.status !== 202) throw this.errorOf(answer.json);
    }
    const meta = answer.json.resultSetMetaData ?? {};
    const columns = ((meta.rowType ?? []) as RowType[]).map(snowflakeColumn);
    await ctx.columns(columns);
    const convert = (rows: unknown[][]) => rows.map((r) => r.map((v, i) => snowflakeValue(v, columns[i]!)));
    await ctx.rows(convert(answer.json.data ?? []));
    const partitions: unknown[] = meta.partitionInfo ?? [];
    for (let p = 1; p < partitions.length; p++) {
      if (ctx.stopped()) throw new Error('stopped');
      const part = await this.request('GET', `/api/v2/statements/${encodeURIComponent(handle)}?partition=${p}`, undefined, ctx.signal);
      if (part.status !== 200) throw this.errorOf(part.json);
      await ctx.rows(convert(part.json.data ?? []));
    }
  };

  run(query: Query, sink: RowSink, opts: RunOptions = {}): Promise<ResultSummary> {
    refuseBoundValues('Snowflake', query);
    return runStatement(this.label, query, sink, opts, (h) => this.cancel(h), this.execute);
  }

  async cancel(handle: CancelHandle): Promise<boolean> {
    if (handle.family !== 'snowflake' || !/^[0-9a-f-]{8,64}$/i.test(handle.statement_handle)) return false;
    const res = await this.request('POST', `/api/v2/statements/${encodeURIComponent(handle.statement_handle)}/cancel`, {});
    return res.status === 200;
  }

  async testConnection(): Promise<ConnectionTestResult> {
    try {
      const [row] = await smallRows(this.label, this.execute, 'SELECT CURRENT_VERSION()');
      return { status: 'ok', error_message: null, server_version: row?.[0] == null ? null : String(row[0]) };
    } catch (err) {
      return connectionTestFailure(err, this.label);
    }
  }

  async schema(opts: SchemaOptions = {}): Promise<SchemaData> {
    if (!this.s.database) {
      throw new ConnectorError(
        'connection_error',
        'Snowflake datasources name their database in "database"; this one has none, so there is no schema to read.',
      );
    }
    const db = `"${this.s.database.replace(/"/g, '""')}"`;
    const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
    const wanted = opts.name ? [opts.name] : opts.included_schemas?.length ? opts.included_schemas : null;
    const where = wanted ? `table_schema IN (${wanted.map(lit).join(', ')})` : "table_schema <> 'INFORMATION_SCHEMA'";
    const rows = await smallRows(
      this.label,
      this.execute,
      `SELECT table_schema, table_name, column_name, data_type FROM ${db}.information_schema.columns WHERE ${where} ORDER BY table_schema, table_name, ordinal_position`,
    );
    const schemas = schemaFromRows(rows, snowflakeTypeToDataType);
    if (!opts.rowCounts) return { schemas };
    // Snowflake keeps each table's row count in its metadata (exact for tables; views have none).
    const counts = await smallRows(
      this.label,
      this.execute,
      `SELECT table_schema, table_name, row_count FROM ${db}.information_schema.tables WHERE ${where} AND row_count IS NOT NULL`,
    );
    let total = 0;
    for (const [schema, table, count] of counts as string[][]) {
      const t = schemas.find((s) => s.name === schema)?.tables.find((x) => x.name === table);
      if (!t) continue;
      t.row_count = Number(count);
      total += t.row_count;
    }
    return { schemas, total_row_count: total, total_row_count_exact: true };
  }
}
