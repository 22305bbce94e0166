import postgres from 'postgres';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
export type Db = PostgresJsDatabase<Schema>;

export interface DbClient {
  sql: postgres.Sql;
  db: Db;
}

/**
 * One postgres.js client and its drizzle wrapper. `max` stays small: in workers a client lives for one
 * request (or one Durable Object); in Node the scripts need only a few connections.
 */
export function createDb(url: string, opts: { max?: number } = {}): DbClient {
  const sql = postgres(url, {
    max: opts.max ?? 5,
    fetch_types: false,
    prepare: true,
    onnotice: () => {},
    connection: { application_name: 'cairn' },
  });
  return { sql, db: drizzle(sql, { schema }) };
}
