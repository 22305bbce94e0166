import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { ApiError, encryptSecret } from '@cairn/core';
import {
  AthenaConnector,
  BigqueryConnector,
  ClickhouseConnector,
  ConnectorError,
  DatabricksConnector,
  MysqlConnector,
  PostgresConnector,
  SnowflakeConnector,
  TrinoConnector,
  connectorFor,
  executionStatusOf,
  type CancelHandle,
  type DatasourceConfig,
} from './index.ts';
import { targetPolicy } from '../target-policy.ts';
import { collect, failure, sleep } from '../../../test/connectors-fixtures.ts';

/** The sample datasource runs on the sample database (D32), as a request sees it. */
const connectorEnv = { secretKey: env.SECRET_KEY, sampleDb: env.SAMPLE_DB, policy: targetPolicy(env) };

const base: DatasourceConfig = {
  name: 'Shop',
  database_type: 'postgres',
  connection_mode: 'direct',
  is_sample: false,
  enabled: true,
  host: '127.0.0.1',
  port: 5432,
  username: 'postgres',
  password_encrypted: null,
  database: 'postgres',
  require_ssl: false,
  verify_ssl: false,
  default_schema_name: null,
  organization_id: 'org_test',
  ssh_tunnel_host: null,
  ssh_tunnel_port: null,
  ssh_tunnel_user: null,
};
const sample: DatasourceConfig = { ...base, name: 'Sample data', is_sample: true, host: null, port: null, username: null, database: null };

describe('connectorFor', () => {
  it('picks the driver family by database type', async () => {
    expect(await connectorFor(base, connectorEnv)).toBeInstanceOf(PostgresConnector);
    expect(await connectorFor({ ...base, database_type: 'redshift' }, connectorEnv)).toBeInstanceOf(PostgresConnector);
    expect(await connectorFor({ ...base, database_type: 'mysql', port: 3306 }, connectorEnv)).toBeInstanceOf(MysqlConnector);
    expect(await connectorFor({ ...base, database_type: 'mariadb', port: 3306 }, connectorEnv)).toBeInstanceOf(MysqlConnector);
    expect(await connectorFor({ ...base, database_type: 'clickhouse', port: 8123 }, connectorEnv)).toBeInstanceOf(ClickhouseConnector);
    expect(await connectorFor({ ...base, database_type: 'trino', port: 8080 }, connectorEnv)).toBeInstanceOf(TrinoConnector);
    expect(await connectorFor({ ...base, database_type: 'presto', port: 8080 }, connectorEnv)).toBeInstanceOf(TrinoConnector);
  });

  it('a type without a driver is a 422 invalid_state naming the type and the types that run', async () => {
    for (const type of ['oracle', 'mssql', 'vertica'] as const) {
      const err = await failure(connectorFor({ ...base, database_type: type }, connectorEnv));
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: 'invalid_state', status: 422 });
      expect(err.message).toBe(
        `Datasources of type "${type}" cannot run queries yet: there is no driver for it. Types that run directly: postgres, redshift, mysql, mariadb, clickhouse, trino, presto, snowflake, bigquery, databricks, athena.`,
      );
    }
  });

  it('mongodb and mongodbatlas: a 422 that names the way round (an SQL layer: the BI Connector as a mysql datasource, or Trino)', async () => {
    for (const type of ['mongodb', 'mongodbatlas'] as const) {
      const err = await failure(connectorFor({ ...base, database_type: type }, connectorEnv));
      expect(err).toMatchObject({ code: 'invalid_state', status: 422, meta: { way_round: 'mongodb_bi_connector' } });
      expect(err.message).toMatch(new RegExp(`^Datasources of type "${type}" cannot run queries: MongoDB has no SQL interface`));
      expect(err.message).toMatch(/BI Connector.*"mysql" datasource/);
      expect(err.message).toMatch(/"trino" datasource/);
    }
  });

  it("the cloud warehouses get their HTTP connectors, with the type's settings", async () => {
    const cloud = { ...base, host: null, port: null };
    expect(await connectorFor({ ...cloud, database_type: 'snowflake', snowflake_identifier: 'acme-xy1' }, connectorEnv)).toBeInstanceOf(SnowflakeConnector);
    expect(await connectorFor({ ...cloud, database_type: 'bigquery' }, connectorEnv)).toBeInstanceOf(BigqueryConnector);
    expect(await connectorFor({ ...cloud, database_type: 'athena', athena_region: 'eu-west-1' }, connectorEnv)).toBeInstanceOf(AthenaConnector);
    const dbx = await connectorFor(
      { ...base, host: 'dbc-1.cloud.databricks.com', port: 443, database_type: 'databricks', databricks_http_path: '/sql/1.0/warehouses/abc' },
      connectorEnv,
    );
    expect(dbx).toBeInstanceOf(DatabricksConnector);
    expect((dbx as DatabricksConnector).label).toBe('dbc-1.cloud.databricks.com:443');
  });

  it('ssh tunnels for the HTTP drivers, types an agent has no driver for, disabled datasources and a missing host are invalid_state', async () => {
    // SSH tunnels run the socket drivers (ssh-tunnel.test.ts); the HTTP ones are a 422 naming what runs.
    expect(
      await failure(
        connectorFor({ ...base, database_type: 'clickhouse', connection_mode: 'ssh_tunnel', ssh_tunnel_host: 'bastion', ssh_tunnel_user: 'u' }, connectorEnv),
      ),
    ).toMatchObject({
      code: 'invalid_state',
      message: expect.stringMatching(
        /clickhouse datasource behind an SSH tunnel.*SSH tunnels run postgres, redshift, cratedb, mysql, mariadb datasources only/,
      ),
    });
    expect(await failure(connectorFor({ ...base, connection_mode: 'ssh_tunnel', ssh_tunnel_host: null }, connectorEnv))).toMatchObject({
      code: 'invalid_state',
      message: 'Datasource "Shop" has no ssh_tunnel_host.',
    });
    expect(await failure(connectorFor({ ...base, database_type: 'clickhouse', connection_mode: 'agent' }, connectorEnv))).toMatchObject({
      code: 'invalid_state',
      message: expect.stringMatching(/cannot run through an agent.*postgres, redshift, mysql, mariadb, mssql, oracle/),
    });
    // An agent datasource without a connected agent: the test answers so instead of a 422 (D50).
    const viaAgent = await connectorFor({ ...base, connection_mode: 'agent', agents: [] }, connectorEnv);
    expect(await viaAgent.testConnection().catch((err: Error) => ({ status: 'error', error_message: err.message }))).toMatchObject({
      status: 'error',
      error_message: expect.stringMatching(/agent/),
    });
    expect(await failure(connectorFor({ ...base, enabled: false }, connectorEnv))).toMatchObject({
      code: 'invalid_state',
      message: 'Datasource "Shop" is disabled.',
    });
    expect(await failure(connectorFor({ ...base, host: null }, connectorEnv))).toMatchObject({ code: 'invalid_state' });
  });

  it('unseals the stored password', async () => {
    const sealed = await encryptSecret('not-the-root-password', env.SECRET_KEY);
    const c = await connectorFor({ ...base, database_type: 'mariadb', port: 3306, username: 'root', database: null, password_encrypted: sealed }, connectorEnv);
    const result = await c.testConnection();
    expect(result.status).toBe('error');
    expect(result.error_message).toMatch(/Access denied for user 'root'.*\(using password: YES\)/);
    const empty = await connectorFor({ ...base, database_type: 'mariadb', port: 3306, username: 'root', database: null }, connectorEnv);
    expect((await empty.testConnection()).status).toBe('ok');
  });
});

describe('the sample datasource (D32)', () => {
  it('reads the sample shop with plain table names', async () => {
    const c = await connectorFor(sample, connectorEnv);
    const { rows, summary } = await collect(c, 'select count(*)::int as n, current_user as who from orders');
    expect(rows[0]![0]).toBeGreaterThan(0);
    expect(rows[0]![1]).toBe('cairn_sample');
    expect(summary.columns.map((col) => col.data_type)).toEqual(['Integer', 'String']);
  });

  it("cannot read Cairn's own tables or write anything", async () => {
    const c = await connectorFor(sample, connectorEnv);
    const denied = await failure(collect(c, 'select * from public.api_keys'));
    expect(denied).toMatchObject({ kind: 'query_error', code: 'query_error' });
    expect(denied.message).toMatch(/permission denied for schema public|does not exist/);
    const write = await failure(collect(c, 'delete from orders'));
    expect(write.message).toMatch(/read-only transaction|permission denied/);
  });

  it('tests its connection and lists only sample_shop', async () => {
    const c = await connectorFor(sample, connectorEnv);
    expect(await c.testConnection()).toMatchObject({ status: 'ok', error_message: null });
    const { schemas } = await c.schema({ included_schemas: ['public'] });
    expect(schemas.map((s) => s.name)).toEqual(['sample_shop']);
    expect(schemas[0]!.tables.map((t) => t.name)).toEqual(expect.arrayContaining(['orders', 'customers', 'products']));
    const orders = schemas[0]!.tables.find((t) => t.name === 'orders')!;
    expect(orders.columns.length).toBeGreaterThan(2);
  });

  it('cancels a running sample query', async () => {
    const c = await connectorFor(sample, connectorEnv);
    let handle: CancelHandle | null = null;
    // The cancel goes through a connection of its own (pg_cancel_backend as the same login role).
    const other = await connectorFor(sample, connectorEnv);
    const started = Date.now();
    const running = failure(collect(c, 'select pg_sleep(30)', { onCancelHandle: (h) => void (handle = h) }));
    while (!handle) await sleep(20);
    await sleep(200);
    expect(await other.cancel(handle)).toBe(true);
    const err = await running;
    expect(err).toBeInstanceOf(ConnectorError);
    expect(executionStatusOf(err)).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('the sample datasource stops', () => {
  it('at an AbortSignal', async () => {
    const c = await connectorFor(sample, connectorEnv);
    const ctl = new AbortController();
    const started = Date.now();
    const err = await failure(collect(c, 'select pg_sleep(30)', { signal: ctl.signal, onCancelHandle: () => void setTimeout(() => ctl.abort(), 200) }));
    expect(err).toMatchObject({ kind: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(5000);
    // The connector works again.
    const { rows } = await collect(c, 'select 1 as one');
    expect(rows).toEqual([[1]]);
  });

  it('times out by the statement timeout', async () => {
    const c = await connectorFor(sample, connectorEnv);
    const err = await failure(collect(c, 'select pg_sleep(10)', { timeoutMs: 300 }));
    expect(err).toMatchObject({ kind: 'timed_out', executionStatus: 'timed_out' });
  });
});

describe('executionStatusOf', () => {
  it('maps failures to execution statuses', () => {
    expect(executionStatusOf(new ConnectorError('timed_out', 'x'))).toBe('timed_out');
    expect(executionStatusOf(new ConnectorError('cancelled', 'x'))).toBe('cancelled');
    expect(executionStatusOf(new ConnectorError('query_error', 'x'))).toBe('query_error');
    expect(executionStatusOf(new ConnectorError('connection_error', 'x'))).toBe('query_error');
    expect(executionStatusOf(new Error('boom'))).toBe('internal_error');
  });
});
