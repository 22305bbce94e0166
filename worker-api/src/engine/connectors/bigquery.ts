import { SignJWT, importPKCS8 } from 'jose';
import type { DataType } from '@cairn/core';
import type { ResultSummary, RowSink } from '../result.ts';
import { Kind, type EncodedColumn } from '../types.ts';
import type { CancelHandle, ConnectionSettings, ConnectionTestResult, Connector, Query, RunOptions, SchemaData, SchemaOptions } from './connector.ts';
import { ConnectorError, cancelled } from './errors.ts';
import { connectionTestFailure, unreachable, type Fetcher } from './http-common.ts';
import { base64Bytes, jsonOf, pollDelay, refuseBoundValues, runStatement, schemaFromRows, sleep, smallRows, type StatementContext } from './statement-run.ts';

const API = 'https://bigquery.googleapis.com/bigquery/v2';
const SCOPE = 'https://www.googleapis.com/auth/bigquery';
/** Rows asked for per page (the API also cuts pages at about 10 MB). */
const PAGE_ROWS = 10_000;
/** How long one jobs.query / getQueryResults call waits for the job before answering jobComplete false. */
const WAIT_MS = 10_000;

interface Field {
  name: string;
  type: string;
  mode?: string;
  fields?: Field[];
}
interface ServiceKey {
  project_id: string;
  client_email: string;
  private_key: string;
  token_uri?: string;
}

function classify(f: Field): [DataType, Kind] {
  const t = f.type.toUpperCase();
  if (f.mode === 'REPEATED') {
    const [inner] = classify({ ...f, mode: 'NULLABLE' });
    return [`Array<${inner.startsWith('Array') || inner === 'Record' ? 'Other' : inner}>` as DataType, Kind.Json];
  }
  switch (t) {
    case 'INTEGER':
    case 'INT64':
      return ['BigInt', Kind.BigInt];
    case 'FLOAT':
    case 'FLOAT64':
      return ['Float', Kind.Float];
    case 'NUMERIC':
    case 'BIGNUMERIC':
    case 'DECIMAL':
    case 'BIGDECIMAL':
      return ['Float', Kind.Decimal];
    case 'BOOLEAN':
    case 'BOOL':
      return ['Boolean', Kind.Bool];
    case 'STRING':
      return ['String', Kind.Text];
    case 'BYTES':
      return ['Binary', Kind.Binary];
    case 'DATE':
      return ['Date', Kind.Date];
    case 'DATETIME':
    case 'TIMESTAMP':
      return ['DateTime', Kind.DateTime];
    case 'TIME':
      return ['Time', Kind.Time];
    case 'JSON':
      return ['JSON', Kind.Json];
    case 'RECORD':
    case 'STRUCT':
      return ['Record', Kind.Json];
    default:
      return ['Other', Kind.Other];
  }
}

function bigqueryColumn(f: Field): EncodedColumn {
  const [data_type, kind] = classify(f);
  return { name: f.name, data_type, kind, db_type: f.mode === 'REPEATED' ? `ARRAY<${f.type}>` : f.type };
}

/** information_schema data_type (`INT64`, `ARRAY<STRING>`, `STRUCT<a INT64>`, `NUMERIC(10, 2)`) → data type. */
function bigqueryTypeToDataType(type: string): DataType {
  const t = type.toUpperCase();
  const array = /^ARRAY<(.*)>$/s.exec(t);
  if (array) return classify({ name: '', type: array[1]!.replace(/[<(].*$/s, ''), mode: 'REPEATED' })[0];
  return classify({ name: '', type: t.replace(/[<(].*$/s, '') })[0];
}

/** A cell of the tabledata format (`{v: …}`) → a JS value for the field's kind. */
function cellValue(v: unknown, f: Field): unknown {
  if (v === null || v === undefined) return null;
  if (f.mode === 'REPEATED') return (v as { v: unknown }[]).map((x) => cellValue(x.v, { ...f, mode: 'NULLABLE' }));
  const t = f.type.toUpperCase();
  if (t === 'RECORD' || t === 'STRUCT') {
    const cells = (v as { f: { v: unknown }[] }).f;
    return Object.fromEntries((f.fields ?? []).map((sub, i) => [sub.name, cellValue(cells[i]?.v, sub)]));
  }
  const s = String(v);
  switch (t) {
    case 'BOOLEAN':
    case 'BOOL':
      return s === 'true';
    case 'FLOAT':
    case 'FLOAT64':
      return Number(s);
    case 'INTEGER':
    case 'INT64':
      return Number.isSafeInteger(Number(s)) ? Number(s) : s;
    case 'JSON':
      return s;
    case 'BYTES':
      return base64Bytes(s);
    case 'TIMESTAMP': {
      // useInt64Timestamp: microseconds since the epoch.
      const us = BigInt(s);
      const ms = Number(us / 1000n);
      const rest = Number(((us % 1000n) + 1000n) % 1000n);
      const iso = new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
      return rest ? `${iso}${String(rest).padStart(3, '0')}` : iso;
    }
    default:
      return s;
  }
}

/** A value for the writer: nested values (records, arrays) become their JSON text. */
function writerValue(v: unknown, f: Field): unknown {
  const x = cellValue(v, f);
  return x !== null && typeof x === 'object' && !(x instanceof Uint8Array) ? JSON.stringify(x) : x;
}

/**
 * BigQuery through its REST API (`fetch`; runs in workerd) with the datasource's service account key:
 * an OAuth token is obtained by a JWT bearer assertion signed with `jose` (RS256) at the key's
 * token_uri, then `jobs.query` runs the statement in the billing project (`database`, else the key's
 * project; standard SQL, the data time
 * zone as the `time_zone` connection property, the statement timeout as `jobTimeoutMs`), and
 * `jobs.getQueryResults` polls the job while it is not complete and reads the further pages by
 * `pageToken`, always with the job's own location. Cancel is `jobs.cancel`. The default dataset is the
 * datasource's `default_schema_name`. Bound values are refused (D48).
 *
 * Proven against recorded exchanges that follow Google's published API (warehouses.test.ts),
 * not against a real project: none can be reached from the test machines.
 */
export class BigqueryConnector implements Connector {
  readonly label = 'bigquery.googleapis.com';
  private token: { value: string; until: number } | null = null;
  private key: ServiceKey | null = null;

  constructor(
    private readonly s: ConnectionSettings,
    private readonly preflight?: () => Promise<void>,
    private readonly fetcher: Fetcher = (input, init) => fetch(input, init),
    private readonly pause: (ms: number) => Promise<void> = sleep,
  ) {}

  private serviceKey(): ServiceKey {
    if (this.key) return this.key;
    try {
      const k = JSON.parse(this.s.cloud?.bigqueryServiceKey ?? '') as ServiceKey;
      if (!k.client_email || !k.private_key || !k.project_id) throw new Error('incomplete');
      return (this.key = k);
    } catch {
      throw new ConnectorError('connection_error', 'Could not connect to BigQuery: the datasource has no usable service account key (bigquery_service_key).');
    }
  }

  /** Where jobs run (and are billed): the datasource's `database` (the form's "Billing project"), else the key's project. */
  private get project(): string {
    return this.s.database || this.serviceKey().project_id;
  }

  /** An access token for the service account (cached until a few minutes before it expires). */
  private async accessToken(signal?: AbortSignal): Promise<string> {
    if (this.token && this.token.until > Date.now()) return this.token.value;
    const key = this.serviceKey();
    const tokenUri = key.token_uri ?? 'https://oauth2.googleapis.com/token';
    let assertion: string;
    try {
      const pk = await importPKCS8(key.private_key, 'RS256');
      assertion = await new SignJWT({ scope: SCOPE })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
        .setIssuer(key.client_email)
        .setAudience(tokenUri)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(pk);
    } catch (err) {
      throw new ConnectorError('connection_error', `Could not connect to BigQuery: the service key's private_key cannot sign (${(err as Error).message}).`);
    }
    let res: Response;
    try {
      res = await this.fetcher(tokenUri, {
        method: 'POST',
        signal,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      });
    } catch (err) {
      throw unreachable(new URL(tokenUri).host, err);
    }
    const { json, text } = await jsonOf(res);
    if (res.status !== 200 || !json?.access_token) {
      const why = json?.error_description ?? json?.error ?? text.slice(0, 300);
      throw new ConnectorError(
        'connection_error',
        `Could not connect to BigQuery: Google refused the service account ${key.client_email} (HTTP ${res.status}: ${why}).`,
      );
    }
    this.token = { value: json.access_token, until: Date.now() + Math.max(60, Number(json.expires_in ?? 3600) - 300) * 1000 };
    return this.token.value;
  }

  private async request(method: 'GET' | 'POST', url: string, body?: unknown, signal?: AbortSignal): Promise<any> {
    const token = await this.accessToken(signal);
    let res: Response;
    try {
      res = await this.fetcher(url, {
        method,
        signal,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      });
    } catch (err) {
      throw unreachable(this.label, err);
    }
    const { json, text } = await jsonOf(res);
    if (res.status === 200) {
      if (json === null) throw new ConnectorError('connection_error', `Could not connect to ${this.label}: the answer is not BigQuery's API.`);
      return json;
    }
    throw this.errorOf(res.status, json?.error, text);
  }

  private errorOf(status: number, e: { message?: string; errors?: { reason?: string }[]; status?: string } | undefined, text = ''): ConnectorError {
    const message = e?.message ?? (text.slice(0, 300) || `HTTP ${status}`);
    const reason = e?.errors?.[0]?.reason;
    if (reason === 'stopped' || /cancel/i.test(reason ?? '')) return cancelled();
    if (reason === 'timeout' || (/exceeded the maximum execution time|Job execution timed out|timed out/i.test(message) && reason !== 'invalidQuery')) {
      return new ConnectorError('timed_out', message, { reason });
    }
    if (status === 401 || (status === 403 && reason !== 'accessDenied') || reason === 'billingNotEnabled' || reason === 'projectNotFound') {
      return new ConnectorError('connection_error', `Could not connect to BigQuery (project ${this.project}): ${message}`, { reason });
    }
    if (status >= 500 || status === 429)
      return new ConnectorError('connection_error', `Could not connect to ${this.label}: HTTP ${status} (${message}).`, { reason });
    return new ConnectorError('query_error', message, { reason });
  }

  private execute = async (sql: string, ctx: StatementContext): Promise<void> => {
    await this.preflight?.();
    const project = this.project;
    const body: Record<string, unknown> = {
      query: sql,
      useLegacySql: false,
      timeoutMs: WAIT_MS,
      maxResults: PAGE_ROWS,
      jobTimeoutMs: String(ctx.timeoutMs),
      requestId: crypto.randomUUID(),
      formatOptions: { useInt64Timestamp: true },
      connectionProperties: [{ key: 'time_zone', value: ctx.timeZone }],
      labels: { source: 'cairn' },
    };
    if (this.s.defaultSchema) body.defaultDataset = { projectId: project, datasetId: this.s.defaultSchema };
    let page = await this.request('POST', `${API}/projects/${encodeURIComponent(project)}/queries`, body, ctx.signal);
    const ref = page.jobReference ?? {};
    if (!ref.jobId) throw new ConnectorError('connection_error', `Could not connect to ${this.label}: the answer names no job.`);
    const location: string | null = ref.location ?? null;
    await ctx.handle({ family: 'bigquery', project_id: ref.projectId ?? project, job_id: ref.jobId, location });
    const results = (extra: Record<string, string>) => {
      const q = new URLSearchParams({ maxResults: String(PAGE_ROWS), timeoutMs: String(WAIT_MS), 'formatOptions.useInt64Timestamp': 'true', ...extra });
      if (location) q.set('location', location);
      return `${API}/projects/${encodeURIComponent(ref.projectId ?? project)}/queries/${encodeURIComponent(ref.jobId)}?${q}`;
    };
    for (let n = 0; !page.jobComplete; n++) {
      if (ctx.stopped()) throw new Error('stopped');
      await this.pause(pollDelay(n));
      page = await this.request('GET', results({}), undefined, ctx.signal);
    }
    if (page.errors?.length && !page.schema) throw this.errorOf(400, { message: page.errors[0].message, errors: page.errors });
    const fields: Field[] = page.schema?.fields ?? [];
    await ctx.columns(fields.map(bigqueryColumn));
    for (;;) {
      const rows = ((page.rows ?? []) as { f: { v: unknown }[] }[]).map((r) => r.f.map((c, i) => writerValue(c.v, fields[i]!)));
      await ctx.rows(rows);
      if (!page.pageToken) break;
      if (ctx.stopped()) throw new Error('stopped');
      page = await this.request('GET', results({ pageToken: page.pageToken }), undefined, ctx.signal);
    }
  };

  run(query: Query, sink: RowSink, opts: RunOptions = {}): Promise<ResultSummary> {
    refuseBoundValues('BigQuery', query);
    return runStatement(this.label, query, sink, opts, (h) => this.cancel(h), this.execute);
  }

  async cancel(handle: CancelHandle): Promise<boolean> {
    if (handle.family !== 'bigquery') return false;
    const q = handle.location ? `?location=${encodeURIComponent(handle.location)}` : '';
    await this.request('POST', `${API}/projects/${encodeURIComponent(handle.project_id)}/jobs/${encodeURIComponent(handle.job_id)}/cancel${q}`);
    return true;
  }

  async testConnection(): Promise<ConnectionTestResult> {
    try {
      await smallRows(this.label, this.execute, 'SELECT 1');
      return { status: 'ok', error_message: null, server_version: 'BigQuery (GoogleSQL)' };
    } catch (err) {
      return connectionTestFailure(err, this.label);
    }
  }

  /** The datasets to read: the named ones, else every dataset of the key's project (datasets.list, by pageToken). */
  private async datasets(opts: SchemaOptions): Promise<string[]> {
    if (opts.name) return [opts.name];
    if (opts.included_schemas?.length) return opts.included_schemas;
    const out: string[] = [];
    let token: string | undefined;
    do {
      const q = new URLSearchParams({ maxResults: '1000', ...(token ? { pageToken: token } : {}) });
      const page = await this.request('GET', `${API}/projects/${encodeURIComponent(this.project)}/datasets?${q}`);
      for (const d of page.datasets ?? []) out.push(d.datasetReference.datasetId);
      token = page.nextPageToken;
    } while (token);
    return out;
  }

  async schema(opts: SchemaOptions = {}): Promise<SchemaData> {
    const schemas: SchemaData['schemas'] = [];
    let total = 0;
    for (const dataset of await this.datasets(opts)) {
      const path = `\`${this.project}.${dataset.replace(/`/g, '')}\``;
      const rows = await smallRows(
        this.label,
        this.execute,
        `SELECT table_schema, table_name, column_name, data_type FROM ${path}.INFORMATION_SCHEMA.COLUMNS ORDER BY table_name, ordinal_position`,
      );
      const [found] = schemaFromRows(rows, bigqueryTypeToDataType);
      const entry = found ?? { name: dataset, tables: [] };
      if (opts.rowCounts) {
        // __TABLES__ holds each table's stored row count (exact for native tables).
        for (const [table, count] of (await smallRows(this.label, this.execute, `SELECT table_id, row_count FROM ${path}.__TABLES__`)) as string[][]) {
          const t = entry.tables.find((x) => x.name === table);
          if (t) total += t.row_count = Number(count);
        }
      }
      schemas.push(entry);
    }
    return opts.rowCounts ? { schemas, total_row_count: total, total_row_count_exact: true } : { schemas };
  }
}
