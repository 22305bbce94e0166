import { AwsClient } from 'aws4fetch';
import type { DataType } from '@cairn/core';
import type { ResultSummary, RowSink } from '../result.ts';
import { Kind, type EncodedColumn } from '../types.ts';
import type { CancelHandle, ConnectionSettings, ConnectionTestResult, Connector, Query, RunOptions, SchemaData, SchemaOptions } from './connector.ts';
import { ConnectorError, cancelled } from './errors.ts';
import { connectionTestFailure, unreachable, type Fetcher } from './http-common.ts';
import { jsonOf, pollDelay, refuseBoundValues, runStatement, sleep, type StatementContext } from './statement-run.ts';
import { trinoColumn, trinoTypeToDataType } from './trino-types.ts';

const CATALOG = 'AwsDataCatalog';
/** AWS's error types that are about the credentials, the region or the workgroup rather than the SQL. */
const SETUP_ERRORS = /UnrecognizedClient|InvalidSignature|SignatureDoesNotMatch|AccessDenied|ExpiredToken|MissingAuthenticationToken|ResourceNotFound/;

/** Athena's type names (Trino's, plus Hive's `string`, `float`, `struct`) → a column; nested values come as text. */
function athenaColumn(name: string, type: string): EncodedColumn {
  const t = type.toLowerCase();
  const alias: Record<string, string> = { string: 'varchar', float: 'real', binary: 'varbinary', int: 'integer', struct: 'row' };
  const base = t.replace(/[<(].*$/s, '').trim();
  // Athena writes arrays, maps, rows and varbinary as display text (`[a, b]`, `{k=v}`, hex), not JSON.
  if (['array', 'map', 'row', 'struct', 'varbinary', 'binary'].includes(base)) return { name, data_type: 'Other', kind: Kind.Other, db_type: type };
  return { ...trinoColumn(name, alias[base] ?? t), db_type: type };
}

/** A Glue/Hive column type (`array<string>`, `struct<a:int>`, `decimal(10,2)`) in Trino's words → data type. */
function athenaTypeToDataType(type: string): DataType {
  const trino = type
    .toLowerCase()
    .replace(/\bstring\b/g, 'varchar')
    .replace(/\bint\b/g, 'integer')
    .replace(/\bfloat\b/g, 'real')
    .replace(/\bbinary\b/g, 'varbinary')
    .replace(/\bstruct\b/g, 'row')
    .replace(/</g, '(')
    .replace(/>/g, ')');
  return trinoTypeToDataType(trino);
}

function cell(v: { VarCharValue?: string }, c: EncodedColumn): unknown {
  const s = v.VarCharValue;
  if (s === undefined) return null;
  if (c.kind === Kind.Bool) return s === 'true';
  if (c.kind === Kind.Float) return Number(s);
  return s;
}

/**
 * Amazon Athena through its JSON API (`fetch`, requests signed with SigV4 by `aws4fetch`; runs in
 * workerd): StartQueryExecution with the datasource's `athena_workgroup`, `athena_s3_output_location`
 * and `database` (in the AwsDataCatalog) at `athena.<athena_region>.amazonaws.com`, then
 * GetQueryExecution until the state is final, then GetQueryResults page by page (NextToken; the first
 * row of the first page repeats the column names and is skipped). `username` is the access key id and
 * `password` the secret access key. The statement timeout is watched by the run's guard (Athena has
 * only its workgroup's limit), which calls StopQueryExecution, as cancel does. Bound values are
 * refused (D48).
 *
 * Proven against recorded exchanges that follow the published API (warehouses.test.ts),
 * not against a real AWS account: none can be reached from the test machines.
 */
export class AthenaConnector implements Connector {
  readonly label: string;
  private readonly region: string;
  private readonly aws: AwsClient;

  constructor(
    private readonly s: ConnectionSettings,
    private readonly preflight?: () => Promise<void>,
    private readonly fetcher: Fetcher = (input, init) => fetch(input, init),
    private readonly pause: (ms: number) => Promise<void> = sleep,
  ) {
    this.region = s.cloud?.athenaRegion ?? 'us-east-1';
    this.label = `athena.${this.region}.amazonaws.com`;
    this.aws = new AwsClient({ accessKeyId: s.user, secretAccessKey: s.password ?? '', region: this.region, service: 'athena', retries: 0 });
  }

  /** One call of the API (X-Amz-Target AmazonAthena.<action>), signed. */
  private async call(action: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<any> {
    const signed = await this.aws.sign(`https://${this.label}/`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `AmazonAthena.${action}` },
    });
    let res: Response;
    try {
      res = await this.fetcher(signed.url, { method: 'POST', headers: Object.fromEntries(signed.headers), body: JSON.stringify(body), signal });
    } catch (err) {
      throw unreachable(this.label, err);
    }
    const { json, text } = await jsonOf(res);
    if (res.status === 200 && json) return json;
    const type = String(json?.__type ?? '').replace(/^.*#/, '');
    const message = json?.Message ?? json?.message ?? text.slice(0, 300);
    if (res.status === 403 || SETUP_ERRORS.test(type)) {
      throw new ConnectorError(
        'connection_error',
        `Could not connect to ${this.label}: AWS refused the request (${type || `HTTP ${res.status}`}: ${message}).`,
        { code: type },
      );
    }
    if (res.status === 400 && type === 'InvalidRequestException') {
      throw new ConnectorError('query_error', message, { code: json?.AthenaErrorCode ?? type });
    }
    throw new ConnectorError(
      'connection_error',
      `Could not connect to ${this.label}: HTTP ${res.status}${message ? ` (${type ? `${type}: ` : ''}${message})` : ''}.`,
      { code: type },
    );
  }

  private execute = async (sql: string, ctx: StatementContext): Promise<void> => {
    await this.preflight?.();
    const c = this.s.cloud ?? {};
    const start: Record<string, unknown> = {
      QueryString: sql,
      ClientRequestToken: crypto.randomUUID(),
      WorkGroup: c.athenaWorkgroup ?? 'primary',
      ResultConfiguration: { OutputLocation: c.athenaOutputLocation },
      QueryExecutionContext: { Catalog: CATALOG, ...(this.s.database ? { Database: this.s.database } : {}) },
    };
    const { QueryExecutionId: id } = await this.call('StartQueryExecution', start, ctx.signal);
    if (!id) throw new ConnectorError('connection_error', `Could not connect to ${this.label}: the answer has no QueryExecutionId.`);
    await ctx.handle({ family: 'athena', query_execution_id: id });
    for (let n = 0; ; n++) {
      const { QueryExecution: q } = await this.call('GetQueryExecution', { QueryExecutionId: id }, ctx.signal);
      const state = q?.Status?.State;
      if (state === 'SUCCEEDED') break;
      if (state === 'CANCELLED') throw cancelled();
      if (state === 'FAILED') {
        const e = q.Status.AthenaError ?? {};
        const message = e.ErrorMessage ?? q.Status.StateChangeReason ?? 'The query failed.';
        // ErrorCategory 1 is Athena's own (system) failure; 2 the query's (user); 3 unknown.
        if (e.ErrorCategory === 1) throw new ConnectorError('connection_error', `Athena at ${this.label}: ${message}`, { code: e.ErrorType });
        throw new ConnectorError('query_error', message, { code: e.ErrorType });
      }
      if (ctx.stopped()) throw new Error('stopped');
      await this.pause(pollDelay(n));
    }
    let columns: EncodedColumn[] | null = null;
    let token: string | undefined;
    do {
      if (ctx.stopped()) throw new Error('stopped');
      const page = await this.call('GetQueryResults', { QueryExecutionId: id, MaxResults: 1000, ...(token ? { NextToken: token } : {}) }, ctx.signal);
      let rows: { Data: { VarCharValue?: string }[] }[] = page.ResultSet?.Rows ?? [];
      if (!columns) {
        const info: { Name: string; Type: string }[] = page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
        columns = info.map((ci) => athenaColumn(ci.Name, ci.Type));
        await ctx.columns(columns);
        // A SELECT's first page starts with the header row (the column names); DDL results have none.
        const first = rows[0]?.Data;
        if (first && info.length && first.every((d, i) => d.VarCharValue === info[i]?.Name)) rows = rows.slice(1);
      }
      await ctx.rows(rows.map((r) => columns!.map((c, i) => cell(r.Data[i] ?? {}, c))));
      token = page.NextToken;
    } while (token);
  };

  run(query: Query, sink: RowSink, opts: RunOptions = {}): Promise<ResultSummary> {
    refuseBoundValues('Athena', query);
    return runStatement(this.label, query, sink, opts, (h) => this.cancel(h), this.execute);
  }

  async cancel(handle: CancelHandle): Promise<boolean> {
    if (handle.family !== 'athena' || !/^[0-9a-f-]{8,64}$/i.test(handle.query_execution_id)) return false;
    await this.call('StopQueryExecution', { QueryExecutionId: handle.query_execution_id });
    return true;
  }

  /**
   * GetWorkGroup: checks the keys, the region and the workgroup without running (and paying for) a
   * query; the server version is the workgroup's effective engine version.
   */
  async testConnection(): Promise<ConnectionTestResult> {
    try {
      await this.preflight?.();
      const wg = await this.call('GetWorkGroup', { WorkGroup: this.s.cloud?.athenaWorkgroup ?? 'primary' });
      const w = wg.WorkGroup ?? {};
      if (w.State && w.State !== 'ENABLED') {
        return { status: 'error', error_message: `Athena workgroup "${w.Name}" is ${w.State}.`, server_version: null };
      }
      return { status: 'ok', error_message: null, server_version: w.Configuration?.EngineVersion?.EffectiveEngineVersion ?? null };
    } catch (err) {
      return connectionTestFailure(err, this.label);
    }
  }

  /** Databases (the named ones, the datasource's, else ListDatabases) and their tables (ListTableMetadata), page by page. */
  async schema(opts: SchemaOptions = {}): Promise<SchemaData> {
    await this.preflight?.();
    let names = opts.name ? [opts.name] : opts.included_schemas?.length ? opts.included_schemas : this.s.database ? [this.s.database] : null;
    if (!names) {
      names = [];
      let token: string | undefined;
      do {
        const page = await this.call('ListDatabases', { CatalogName: CATALOG, MaxResults: 50, ...(token ? { NextToken: token } : {}) });
        for (const d of page.DatabaseList ?? []) names.push(d.Name);
        token = page.NextToken;
      } while (token);
    }
    const schemas: SchemaData['schemas'] = [];
    for (const db of names) {
      const tables: SchemaData['schemas'][number]['tables'] = [];
      let token: string | undefined;
      do {
        const page = await this.call('ListTableMetadata', { CatalogName: CATALOG, DatabaseName: db, MaxResults: 50, ...(token ? { NextToken: token } : {}) });
        for (const t of page.TableMetadataList ?? []) {
          const cols: { Name: string; Type: string }[] = [...(t.Columns ?? []), ...(t.PartitionKeys ?? [])];
          tables.push({ name: t.Name, columns: cols.map((c) => ({ name: c.Name, db_type: c.Type, data_type: athenaTypeToDataType(c.Type) })) });
        }
        token = page.NextToken;
      } while (token);
      schemas.push({ name: db, tables });
    }
    // Row counts: Athena keeps none without scanning the data, so none are given.
    return { schemas };
  }
}
