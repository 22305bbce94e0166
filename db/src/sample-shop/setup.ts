/**
 * The sample database (ARCHITECTURE D32): the one place that makes it, on a real server and on the
 * embedded one alike. Next to the metadata database `<name>` it creates `<name>_sample` holding only the
 * sample shop, and the LOGIN role `cairn_sample` the sample datasource connects as:
 *
 * - no superuser, createdb, createrole, replication or bypassrls; it inherits nothing and owns nothing;
 * - SELECT on the shop's tables (granted by loadSampleShop) and CONNECT on the sample database only;
 * - read-only by default, with a statement timeout and search_path `sample_shop`;
 * - PUBLIC loses TEMP and CREATE on the sample database and CONNECT on the metadata database, so the
 *   role cannot even open a session there (owners and superusers still can);
 * - in the sample database the activity views are closed to PUBLIC: one organization's sample query
 *   text is not another's to read (all of them run as this one role); so are pg_cancel_backend and
 *   pg_terminate_backend (one organization's SQL could stop another's), and Cairn cancels a sample run
 *   through SAMPLE_CANCEL_FUNCTION, which needs the run's random tag.
 *
 * Needs a connection that may create databases and roles (a superuser, or the owner with CREATEROLE and
 * CREATEDB). `npm start`, `npm test`, scripts/dev-db.ts, the benchmark and `npm run db:sample` call it.
 */
import postgres from 'postgres';
import {
  DEFAULT_SAMPLE_PASSWORD,
  SAMPLE_CANCEL_FUNCTION,
  SAMPLE_CONTROL_SCHEMA,
  SAMPLE_DATABASE_SUFFIX,
  SAMPLE_LOGIN_ROLE,
  SAMPLE_SHOP_SCHEMA,
} from './constants.ts';
import { loadSampleShop, type LoadSampleShopResult } from './index.ts';
import { lit } from './sql.ts';
import { moveSampleShopDates, type MoveResult } from './dates.ts';

/** Statement timeout of the role's sessions (the connector sets a per-run one as well). */
export const SAMPLE_ROLE_STATEMENT_TIMEOUT = '300s';

export interface SampleDatabaseOptions {
  /** Default `<metadata database>_sample`. */
  database?: string;
  /** The role's password (default DEFAULT_SAMPLE_PASSWORD: set one in production). */
  password?: string;
  /**
   * Move the shop's dates so that its last day is yesterday (dates.ts): `npm start` does, so relative
   * filters always show data; tests and benchmarks keep the fixed calendar of the load.
   */
  moveDates?: boolean;
}

export interface SampleDatabase {
  /** How the sample datasource connects: the sample database as `cairn_sample`. */
  url: string;
  database: string;
  /** The metadata database whose CONNECT was taken from PUBLIC. */
  metadataDatabase: string;
  shop: LoadSampleShopResult;
  /** What moveDates did (absent without it). */
  moved?: MoveResult;
}

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** `<metadata>_sample`, kept within PostgreSQL's 63 characters. */
export function sampleDatabaseName(metadataDatabase: string): string {
  return `${metadataDatabase.slice(0, 63 - SAMPLE_DATABASE_SUFFIX.length)}${SAMPLE_DATABASE_SUFFIX}`;
}

/** The sample datasource's URL next to a metadata URL: same server, database `<name>_sample`, user cairn_sample. */
export function sampleDatabaseUrl(metadataUrl: string, opts: SampleDatabaseOptions = {}): string {
  const u = new URL(metadataUrl);
  const meta = decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres';
  u.pathname = `/${encodeURIComponent(opts.database ?? sampleDatabaseName(meta))}`;
  u.username = SAMPLE_LOGIN_ROLE;
  u.password = encodeURIComponent(opts.password ?? DEFAULT_SAMPLE_PASSWORD);
  u.search = '';
  return u.toString();
}

function ident(name: string): string {
  if (!NAME.test(name)) throw new Error(`refusing unusual database name ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** Creates the login role, or puts its attributes and settings back where they belong. Safe to run concurrently. */
export async function ensureSampleRole(sql: postgres.Sql, password = DEFAULT_SAMPLE_PASSWORD): Promise<void> {
  const role = SAMPLE_LOGIN_ROLE;
  const attrs = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT CONNECTION LIMIT 200 PASSWORD ${lit(password)}`;
  await sql.unsafe(`
    DO $cairn$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${lit(role)}) THEN
        BEGIN
          CREATE ROLE ${role} ${attrs};
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
          NULL;
        END;
      END IF;
    END
    $cairn$`);
  await sql.unsafe(`ALTER ROLE ${role} WITH ${attrs}`);
  // Membership in any role (pg_read_server_files, another login…) would let SET ROLE reach it.
  const memberships = await sql.unsafe<{ granted: string }[]>(
    `SELECT r.rolname AS granted FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid
      WHERE m.member = (SELECT oid FROM pg_roles WHERE rolname = ${lit(role)})`,
  );
  for (const m of memberships) await sql.unsafe(`REVOKE "${m.granted.replace(/"/g, '""')}" FROM ${role}`);
  for (const [name, value] of [
    ['default_transaction_read_only', 'on'],
    ['statement_timeout', SAMPLE_ROLE_STATEMENT_TIMEOUT],
    ['idle_in_transaction_session_timeout', '60s'],
    ['search_path', SAMPLE_SHOP_SCHEMA],
    ['temp_file_limit', '1GB'],
  ] as const) {
    await sql.unsafe(`ALTER ROLE ${role} SET ${name} = ${lit(value)}`);
  }
}

/**
 * Makes (or repairs) the sample database next to the metadata database of `adminUrl` and loads the shop.
 * Idempotent and cheap when everything is in place. Returns the sample datasource's connection URL.
 */
export async function ensureSampleDatabase(adminUrl: string, opts: SampleDatabaseOptions = {}): Promise<SampleDatabase> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, connection: { application_name: 'cairn-sample-setup' } });
  let metadataDatabase: string;
  let database: string;
  try {
    const [row] = await admin.unsafe<{ db: string }[]>('SELECT current_database() AS db');
    metadataDatabase = row!.db;
    database = opts.database ?? sampleDatabaseName(metadataDatabase);
    if (database === metadataDatabase) throw new Error('the sample database must not be the metadata database');
    // Roles belong to the server: two set-ups at once (two test databases) may update the same role row.
    for (let attempt = 1; ; attempt++) {
      try {
        await ensureSampleRole(admin, opts.password);
        break;
      } catch (err) {
        if (attempt >= 5 || !/tuple concurrently (updated|deleted)/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt + Math.random() * 100));
      }
    }
    const [exists] = await admin.unsafe('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!exists) {
      try {
        await admin.unsafe(`CREATE DATABASE ${ident(database)}`);
      } catch (err) {
        if ((err as { code?: string }).code !== '42P04') throw err; // made by a concurrent setup
      }
    }
    // The role may connect to the sample database only: nobody but owners connects to the metadata one.
    // (The role running this keeps an explicit CONNECT; any other role that uses the metadata database needs one too.)
    await admin.unsafe(`REVOKE CONNECT ON DATABASE ${ident(metadataDatabase)} FROM PUBLIC`);
    await admin.unsafe(`REVOKE ALL ON DATABASE ${ident(metadataDatabase)} FROM ${SAMPLE_LOGIN_ROLE}`);
    await admin.unsafe(`GRANT CONNECT ON DATABASE ${ident(metadataDatabase)} TO CURRENT_USER`);
    await admin.unsafe(`REVOKE ALL ON DATABASE ${ident(database)} FROM PUBLIC`);
    await admin.unsafe(`GRANT CONNECT ON DATABASE ${ident(database)} TO ${SAMPLE_LOGIN_ROLE}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  const inSample = postgres(u.toString(), { max: 1, onnotice: () => {}, connection: { application_name: 'cairn-sample-setup' } });
  let shop: LoadSampleShopResult;
  let moved: MoveResult | undefined;
  try {
    shop = await loadSampleShop(inSample);
    if (opts.moveDates) moved = await moveSampleShopDates(inSample);
    await inSample.unsafe('REVOKE ALL ON SCHEMA public FROM PUBLIC');
    // Every organization's sample queries run as the same role, and a role sees the text of its own
    // sessions' statements: the activity views and their functions are closed to it.
    for (const stmt of [
      'REVOKE SELECT ON pg_catalog.pg_stat_activity FROM PUBLIC',
      'REVOKE EXECUTE ON FUNCTION pg_catalog.pg_stat_get_activity(integer) FROM PUBLIC',
      'REVOKE EXECUTE ON FUNCTION pg_catalog.pg_stat_get_backend_activity(integer) FROM PUBLIC',
    ])
      await inSample.unsafe(stmt);
    // The same role may signal its own sessions: without this, one organization's sample SQL could
    // cancel or end every other organization's running sample queries. Cairn's own cancel goes through
    // a function that signals only the session whose per-run application_name (a random tag the SQL
    // cannot read, see above) it is given.
    for (const stmt of [
      'REVOKE EXECUTE ON FUNCTION pg_catalog.pg_cancel_backend(integer) FROM PUBLIC',
      'REVOKE EXECUTE ON FUNCTION pg_catalog.pg_terminate_backend(integer, bigint) FROM PUBLIC',
      `CREATE SCHEMA IF NOT EXISTS ${SAMPLE_CONTROL_SCHEMA}`,
      `REVOKE ALL ON SCHEMA ${SAMPLE_CONTROL_SCHEMA} FROM PUBLIC`,
      `GRANT USAGE ON SCHEMA ${SAMPLE_CONTROL_SCHEMA} TO ${SAMPLE_LOGIN_ROLE}`,
      `CREATE OR REPLACE FUNCTION ${SAMPLE_CANCEL_FUNCTION}(target integer, tag text) RETURNS boolean
         LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog AS $fn$
           SELECT coalesce(bool_or(pg_cancel_backend(a.pid)), false) FROM pg_stat_activity a
            WHERE a.pid = target AND length(tag) >= 30 AND a.application_name = tag AND a.usename = ${lit(SAMPLE_LOGIN_ROLE)}
         $fn$`,
      `REVOKE ALL ON FUNCTION ${SAMPLE_CANCEL_FUNCTION}(integer, text) FROM PUBLIC`,
      `GRANT EXECUTE ON FUNCTION ${SAMPLE_CANCEL_FUNCTION}(integer, text) TO ${SAMPLE_LOGIN_ROLE}`,
    ])
      await inSample.unsafe(stmt);
  } finally {
    await inSample.end({ timeout: 5 });
  }
  return { url: sampleDatabaseUrl(adminUrl, { database, password: opts.password }), database, metadataDatabase, shop, ...(moved ? { moved } : {}) };
}
