import postgres from 'postgres';
import { CONNECT_TIMEOUT_S, type ConnectionSettings } from './connector.ts';
import { inWorkerd, openPgSocket, type PgSocket } from '@cairn/core/pg/socket';

/** A client for one operation and how to let go of it afterwards. */
export interface PgSession {
  sql: postgres.Sql;
  release(): void;
  /**
   * The session's current socket when it is ours (workerd, an analyst's database): a statement can
   * then be read off the wire directly (@cairn/core/pg/wire). Undefined or null: only through postgres.js.
   */
  socket?: () => PgSocket | null;
}

/** The Postgres wire-protocol databases and what each of them supports. */
export type PgFamily = 'postgres' | 'redshift' | 'cratedb';

/**
 * Where a Postgres-family connector gets its connections: an analyst's database or the sample database
 * (D32), both a client per operation, closed afterwards.
 */
export interface PgSource {
  family: PgFamily;
  /** `host:port`, for messages. */
  label: string;
  /** The sample datasource: its own database, reached as the login role cairn_sample; shows sample_shop only. */
  sample: boolean;
  defaultSchema?: string | null;
  open(): PgSession;
  /**
   * Checks made on a freshly opened session before each operation (connectors/target-guard.ts): the
   * target is not Cairn's own database, nor a blocked network. Throws a `refused` ConnectorError.
   */
  preflight?: (sql: postgres.Sql) => Promise<void>;
}

/**
 * Decides how a finished operation's connection is closed: a request hands `close()` to
 * ctx.waitUntil; the default closes it in the background.
 */
export type Closer = (close: () => Promise<unknown>) => void;

export const closeInBackground: Closer = (close) => void close().catch(() => {});

function sslOption(s: Pick<ConnectionSettings, 'requireSsl' | 'verifySsl'>): 'verify-full' | 'require' | false {
  if (!s.requireSsl) return false;
  return s.verifySsl ? 'verify-full' : 'require';
}

/** postgres.js's `ssl` in Node: dialling a checked address, the certificate is still checked against the name. */
function nodeSsl(s: ConnectionSettings): ReturnType<typeof sslOption> | { servername: string; rejectUnauthorized: boolean } {
  const mode = sslOption(s);
  if (!mode || !s.address) return mode;
  return { servername: s.host, rejectUnauthorized: mode === 'verify-full' };
}

export function remoteSource(family: PgFamily, s: ConnectionSettings, close: Closer = closeInBackground, preflight?: PgSource['preflight']): PgSource {
  return {
    family,
    label: s.via ? `${s.host}:${s.port} through ${s.via}` : `${s.host}:${s.port}`,
    sample: false,
    defaultSchema: s.defaultSchema,
    preflight,
    open() {
      // In workerd the socket (and SSL negotiation) is ours; in Node postgres.js opens its own. Through
      // an SSH tunnel the channel is the socket (no SSL inside it: D51), read through postgres.js's cursor.
      const tunnel = s.tunnel;
      const workerd = inWorkerd() && !tunnel;
      let socket: PgSocket | null = null;
      const sql = postgres({
        // The checked address when there is one (target-guard.ts dialAddress); TLS checks the name.
        host: s.address ?? s.host,
        port: s.port,
        user: s.user,
        password: s.password ?? '',
        database: s.database || undefined,
        max: 1,
        fetch_types: false,
        prepare: false,
        connect_timeout: CONNECT_TIMEOUT_S,
        max_lifetime: null,
        ssl: workerd || tunnel ? false : nodeSsl(s),
        ...(tunnel ? { socket: tunnel } : {}),
        ...(workerd ? { socket: async () => (socket = await openPgSocket(s.address ?? s.host, s.port, s.requireSsl, CONNECT_TIMEOUT_S * 1000, s.host)) } : {}),
        connection: { application_name: 'cairn' },
        onnotice: () => {},
      });
      return { sql, release: () => close(() => sql.end({ timeout: 2 })), socket: () => socket };
    },
  };
}

/** Where the sample database is: the API worker's SAMPLE_DB Hyperdrive binding has these fields. */
export interface SampleDatabase {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/**
 * The sample datasource (D32): a database of its own that holds only the sample shop, reached over its
 * own connection as the login role cairn_sample, which owns nothing and can reach nothing else. Never
 * Cairn's metadata database. The run's read-only transaction and statement timeout stay as a second wall.
 */
export function sampleSource(db: SampleDatabase, close: Closer = closeInBackground): PgSource {
  const source = remoteSource(
    'postgres',
    {
      host: db.host,
      port: Number(db.port),
      user: db.user,
      password: db.password,
      database: db.database,
      requireSsl: false,
      verifySsl: false,
      defaultSchema: 'sample_shop',
    },
    close,
  );
  return { ...source, label: 'the sample database', sample: true };
}
