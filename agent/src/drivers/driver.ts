import type { AgentCell, AgentColumn, AgentDatasource, FailureKind } from '@cairn/core/agent-protocol';

/** A failure with the kind the API records (query_error, timed_out, cancelled, connection_error). */
export class AgentFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message);
  }
}

export interface RunRequest {
  text: string;
  values: unknown[];
  timeoutMs: number;
  timeZone: string;
}

/** Where a driver writes a result: columns once, then rows; `row` answers false when the reader is behind (pause the read). */
export interface ResultOut {
  columns(cols: AgentColumn[]): void;
  row(cells: AgentCell[]): boolean;
  /** Resolves once the reader has caught up (call after `row` answered false). */
  drained(): Promise<void>;
}

export interface TestAnswer {
  status: 'ok' | 'error';
  error_message: string | null;
  server_version: string | null;
}

/** Schema rows: schema, table, column, database type, type name for mapping, row count (or null). */
export type SchemaRow = [string, string, string, string, string, number | null];

export interface SchemaOptions {
  name?: string | null;
  included_schemas?: string[] | null;
  included_databases?: string[] | null;
  rowCounts?: boolean;
}

export interface Driver {
  /** Runs one statement; `signal` aborts it in the database (a `cancelled` failure). */
  run(ds: AgentDatasource, req: RunRequest, out: ResultOut, signal: AbortSignal): Promise<void>;
  test(ds: AgentDatasource): Promise<TestAnswer>;
  schema(ds: AgentDatasource, opts: SchemaOptions): Promise<{ rows: SchemaRow[]; exact: boolean }>;
}

export const CONNECT_TIMEOUT_MS = 10_000;

export function messageOf(err: unknown): string {
  if (err instanceof Error && err.message) return err.message;
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' ? code : String(err);
}

export function connectionFailure(ds: AgentDatasource, port: number, err: unknown): AgentFailure {
  return new AgentFailure('connection_error', `Could not connect to ${ds.host}:${port} (from the agent): ${messageOf(err)}`);
}

/** Bytes as the protocol carries them. */
export const bytesCell = (b: Uint8Array): AgentCell => ({ b64: Buffer.from(b).toString('base64') });

/** Test answers: an error is the database's (or the network's) own message, never a throw. */
export async function testBy(ds: AgentDatasource, fn: () => Promise<string | null>): Promise<TestAnswer> {
  try {
    return { status: 'ok', error_message: null, server_version: await fn() };
  } catch (err) {
    return { status: 'error', error_message: err instanceof AgentFailure ? err.message : `${ds.host}: ${messageOf(err)}`, server_version: null };
  }
}

/** A client shaped like node-postgres' (pg, vertica-nodejs): what `testByVersion` uses. */
interface VersionClient {
  query(q: { text: string; rowMode: 'array' }): Promise<{ rows: unknown[][] }>;
  end(): Promise<void>;
}

/** test_connection for node-postgres-shaped drivers: open, read the server's version, close. */
export function testByVersion(ds: AgentDatasource, open: (ds: AgentDatasource) => Promise<unknown>, sql = 'select version()'): Promise<TestAnswer> {
  return testBy(ds, async () => {
    const client = (await open(ds)) as VersionClient;
    try {
      const r = await client.query({ text: sql, rowMode: 'array' });
      return String(r.rows[0]?.[0] ?? '') || null;
    } finally {
      await client.end().catch(() => {});
    }
  });
}

/** A client shaped like node-postgres' as `connectClient` uses it. */
interface ConnectableClient {
  on(event: 'error', fn: (err: Error) => void): unknown;
  connect(): Promise<unknown>;
  end(): Promise<unknown>;
}

/**
 * Connects a node-postgres-shaped client (pg, vertica-nodejs); a late socket error is swallowed (the
 * operation in flight reports it), and a failed connect closes the client and is the datasource's
 * connection error.
 */
export async function connectClient<C extends ConnectableClient>(ds: AgentDatasource, port: number, client: C): Promise<C> {
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw connectionFailure(ds, port, err);
  }
  return client;
}
