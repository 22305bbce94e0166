import postgres from 'postgres';
import mysql from 'mysql2';
import { randomString } from '@cairn/core';
import {
  MysqlConnector,
  PostgresConnector,
  remoteSource,
  type ConnectionSettings,
  type Connector,
  type Query,
  type RunOptions,
} from '../src/engine/connectors/index.ts';
import type { ResultChunk, ResultSummary } from '../src/engine/result.ts';

/**
 * Scratch databases on the real servers of this machine (Postgres 127.0.0.1:5432, MariaDB
 * 127.0.0.1:3306), one per test file and run, dropped at the end. The connectors close their own
 * connections (through their own socket in workerd). Clients made here with postgres.js are never
 * ended (its socket polyfill raises "Stream was cancelled" in the workers pool); dropping the
 * database WITH (FORCE) ends them server-side.
 */

const PG_BASE: ConnectionSettings = {
  host: '127.0.0.1',
  port: 5432,
  user: 'postgres',
  password: 'postgres',
  database: 'postgres',
  requireSsl: false,
  verifySsl: false,
};
const MY_BASE: ConnectionSettings = {
  host: '127.0.0.1',
  port: 3306,
  user: 'root',
  password: '',
  requireSsl: false,
  verifySsl: false,
};

const scratchName = () =>
  `cairn_cx_${randomString(10)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')}`;

export function pgClient(database = 'postgres'): postgres.Sql {
  return postgres({ ...pgOpts(), database, max: 1, fetch_types: false, onnotice: () => {} });
}
const pgOpts = () => ({ host: PG_BASE.host, port: PG_BASE.port, user: PG_BASE.user, password: PG_BASE.password });

export async function createPgDatabase(): Promise<{ name: string; sql: postgres.Sql; drop: () => Promise<void> }> {
  const name = scratchName();
  const admin = pgClient();
  await admin.unsafe(`create database ${name}`);
  return {
    name,
    sql: pgClient(name),
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
    },
  };
}

export const pgConnector = (over: Partial<ConnectionSettings> = {}) => new PostgresConnector(remoteSource('postgres', { ...PG_BASE, ...over }));

export type MyConn = { query(sql: string, cb: (err: Error | null, rows?: unknown) => void): void };

function myClient(database?: string): MyConn {
  const conn = mysql.createConnection({
    host: MY_BASE.host,
    port: MY_BASE.port,
    user: 'root',
    password: '',
    database,
    disableEval: true,
    multipleStatements: true,
  });
  (conn as unknown as { on(e: string, f: () => void): void }).on('error', () => {});
  return conn as unknown as MyConn;
}

export function myQuery<T = unknown>(conn: MyConn, sql: string): Promise<T> {
  return new Promise((resolve, reject) => conn.query(sql, (err, rows) => (err ? reject(err) : resolve(rows as T))));
}

export async function createMyDatabase(): Promise<{ name: string; conn: MyConn; drop: () => Promise<void> }> {
  const name = scratchName();
  const admin = myClient();
  await myQuery(admin, `create database ${name}`);
  return { name, conn: myClient(name), drop: () => myQuery(admin, `drop database if exists ${name}`).then(() => {}) };
}

export const myConnector = (over: Partial<ConnectionSettings> = {}) => new MysqlConnector({ ...MY_BASE, ...over });

export interface Collected {
  summary: ResultSummary;
  chunks: ResultChunk[];
  /** The rows as the data server would send them: `[` + chunks joined by `,` + `]`, parsed. */
  rows: unknown[][];
  columnsAnnounced: unknown;
}

/** Runs a query into a sink that keeps everything, and parses the result the way clients will. */
export async function collect(connector: Connector, query: Query | string, opts?: RunOptions): Promise<Collected> {
  const chunks: ResultChunk[] = [];
  let columnsAnnounced: unknown = null;
  const q = typeof query === 'string' ? { text: query, values: [] } : query;
  const summary = await connector.run(q, { columns: (c) => void (columnsAnnounced = c), chunk: (c) => void chunks.push(c) }, opts);
  const decoder = new TextDecoder();
  const text = `[${chunks.map((c) => decoder.decode(c.data)).join(',')}]`;
  return { summary, chunks, rows: JSON.parse(text) as unknown[][], columnsAnnounced };
}

/** The error a promise rejects with (fails the test if it resolves). */
export async function failure(p: Promise<unknown>): Promise<Error & Record<string, any>> {
  try {
    await p;
  } catch (err) {
    return err as Error & Record<string, any>;
  }
  throw new Error('expected a failure, but it succeeded');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
