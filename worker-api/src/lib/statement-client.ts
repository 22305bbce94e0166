import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';

/**
 * A postgres.js client for the statements drizzle's pg-proxy driver hands over as text and parameters
 * (the Hyperdrive sender of lib/db.ts and the DbPool objects). drizzle's postgres-js driver installs the
 * value handling its column mappers expect on the client it is given: json and jsonb parameters go out as
 * the text drizzle already serialized (postgres.js would JSON-encode them a second time), dates and
 * timestamps come back as text. Without it, a jsonb array written through Hyperdrive was stored as one
 * JSON string: drizzle read it back right, but SQL operators on it (`@>`, `-`, `jsonb_array_length`) saw a
 * string, which broke recovery codes and single sign-on domains on the production path.
 */
export function statementClient(url: string, options: postgres.Options<Record<string, postgres.PostgresType>>): postgres.Sql {
  const sql = postgres(url, options);
  drizzle(sql);
  return sql;
}
