/**
 * Exchanges of the Trino / Presto client REST protocol, written down from the published protocol
 * (trino.io/docs/current/develop/client-protocol.html, prestodb.io's "Presto Client REST API"): the
 * QueryResults documents a coordinator answers to `POST /v1/statement` and to each `nextUri` — queued,
 * then executing pages, columns with their type names, rows in `data`, `error` on failure — with the
 * values written as the servers write them (bigint as a JSON number, decimal as a string, varbinary as
 * base64, timestamps as `YYYY-MM-DD HH:MM:SS.fff[ zone]`, NaN as a string). No running server is behind
 * them: the Trino and Presto connectors are proven against these, not against a real coordinator.
 */

export interface Exchange {
  method: 'POST' | 'GET' | 'DELETE';
  /** Path and query of the request. */
  path: string;
  status: number;
  body: string;
}

const ID = '20261127_035812_00042_k3v9x';
const HOST = 'http://coordinator.internal:8080';

const sig = (rawType: string, args: unknown[] = []) => ({ rawType, arguments: args });

const COLUMNS = [
  { name: 'id', type: 'integer', typeSignature: sig('integer') },
  { name: 'big', type: 'bigint', typeSignature: sig('bigint') },
  {
    name: 'price',
    type: 'decimal(12,2)',
    typeSignature: sig('decimal', [
      { kind: 'LONG', value: 12 },
      { kind: 'LONG', value: 2 },
    ]),
  },
  { name: 'ratio', type: 'double', typeSignature: sig('double') },
  { name: 'name', type: 'varchar(20)', typeSignature: sig('varchar', [{ kind: 'LONG', value: 20 }]) },
  { name: 'ok', type: 'boolean', typeSignature: sig('boolean') },
  { name: 'day', type: 'date', typeSignature: sig('date') },
  { name: 'at', type: 'timestamp(3)', typeSignature: sig('timestamp', [{ kind: 'LONG', value: 3 }]) },
  { name: 'at_zone', type: 'timestamp(3) with time zone', typeSignature: sig('timestamp with time zone', [{ kind: 'LONG', value: 3 }]) },
  { name: 't', type: 'time(3)', typeSignature: sig('time', [{ kind: 'LONG', value: 3 }]) },
  { name: 'raw', type: 'varbinary', typeSignature: sig('varbinary') },
  { name: 'doc', type: 'json', typeSignature: sig('json') },
  { name: 'tags', type: 'array(varchar)', typeSignature: sig('array', [{ kind: 'TYPE', value: sig('varchar') }]) },
  { name: 'pair', type: 'row(a integer, b varchar)', typeSignature: sig('row') },
  { name: 'u', type: 'uuid', typeSignature: sig('uuid') },
];

const stats = (state: string) => ({
  state,
  queued: state === 'QUEUED',
  scheduled: state !== 'QUEUED',
  nodes: 1,
  totalSplits: 4,
  queuedSplits: 0,
  runningSplits: 0,
  completedSplits: 4,
  cpuTimeMillis: 12,
  wallTimeMillis: 20,
  queuedTimeMillis: 1,
  elapsedTimeMillis: 30,
  processedRows: 3,
  processedBytes: 300,
  peakMemoryBytes: 1024,
});

const page = (o: Record<string, unknown>) => JSON.stringify({ id: ID, infoUri: `${HOST}/ui/query.html?${ID}`, ...o });

/** A SELECT that is queued, then runs, then hands out its rows over two pages. */
export function selectExchanges(prefix = '/v1/statement'): Exchange[] {
  return [
    { method: 'POST', path: prefix, status: 200, body: page({ nextUri: `${HOST}/v1/statement/queued/${ID}/y0d7a1/1`, stats: stats('QUEUED') }) },
    { method: 'GET', path: `/v1/statement/queued/${ID}/y0d7a1/1`, status: 503, body: '' },
    {
      method: 'GET',
      path: `/v1/statement/queued/${ID}/y0d7a1/1`,
      status: 200,
      body: page({ nextUri: `${HOST}/v1/statement/executing/${ID}/y0d7a1/0`, stats: stats('RUNNING') }),
    },
    {
      method: 'GET',
      path: `/v1/statement/executing/${ID}/y0d7a1/0`,
      status: 200,
      // Written by hand as the server writes it: the bigint's digits beyond 2^53 must survive.
      body:
        `{"id":"${ID}","infoUri":"${HOST}/ui/query.html?${ID}","partialCancelUri":"${HOST}/v1/stage/${ID}.0","nextUri":"${HOST}/v1/statement/executing/${ID}/y0d7a1/1",` +
        `"columns":${JSON.stringify(COLUMNS)},` +
        `"data":[[1,9007199254740993,"12345.67",0.5,"caf\\u00e9 \\"q\\"",true,"2024-02-29","2024-03-05 06:07:08.500","2024-03-05 06:07:08.000 UTC","10:11:12.000","AAH/","{\\"a\\":[1,2]}",["x","y"],[7,"z"],"61f0c404-5cb3-11e7-907b-a6006ad3dba0"],` +
        `[2,-5,"-0.50","NaN","",false,"1970-01-01","2024-01-01 00:00:00.000","2024-07-01 12:00:00.000 Europe/Berlin","00:00:00.000","","null",[],[null,null],null]],` +
        `"stats":${JSON.stringify(stats('RUNNING'))}}`,
    },
    {
      method: 'GET',
      path: `/v1/statement/executing/${ID}/y0d7a1/1`,
      status: 200,
      body: page({
        nextUri: `${HOST}/v1/statement/executing/${ID}/y0d7a1/2`,
        columns: COLUMNS,
        data: [[3, null, null, null, null, null, null, null, '2024-01-01 10:00:00.000 +05:30', null, null, null, null, null, null]],
        stats: stats('RUNNING'),
      }),
    },
    { method: 'GET', path: `/v1/statement/executing/${ID}/y0d7a1/2`, status: 200, body: page({ columns: COLUMNS, stats: stats('FINISHED') }) },
  ];
}

/** A query the server refuses: the error travels inside QueryResults (HTTP 200). */
export function errorExchanges(error: Record<string, unknown>): Exchange[] {
  return [
    { method: 'POST', path: '/v1/statement', status: 200, body: page({ nextUri: `${HOST}/v1/statement/queued/${ID}/a1/1`, stats: stats('QUEUED') }) },
    { method: 'GET', path: `/v1/statement/queued/${ID}/a1/1`, status: 200, body: page({ stats: stats('FAILED'), error }) },
  ];
}

export const SYNTAX_ERROR = {
  message:
    "line 1:1: mismatched input 'SELEC'. Expecting: 'ALTER', 'ANALYZE', 'CALL', 'COMMENT', 'COMMIT', 'CREATE', 'DEALLOCATE', 'DELETE', 'DENY', 'DESC', 'DESCRIBE', 'DROP', 'EXECUTE', 'EXPLAIN', 'GRANT', 'INSERT', 'MERGE', 'PREPARE', 'REFRESH', 'RESET', 'REVOKE', 'ROLLBACK', 'SELECT', 'SET', 'SHOW', 'START', 'TRUNCATE', 'UPDATE', 'USE', 'WITH', <query>",
  errorCode: 1,
  errorName: 'SYNTAX_ERROR',
  errorType: 'USER_ERROR',
  errorLocation: { lineNumber: 1, columnNumber: 1 },
  failureInfo: { type: 'io.trino.sql.parser.ParsingException', message: "line 1:1: mismatched input 'SELEC'", suppressed: [], stack: [] },
};

export const TIME_LIMIT_ERROR = {
  message: 'Query exceeded the maximum execution time limit of 2.00s',
  errorCode: 131075,
  errorName: 'EXCEEDED_TIME_LIMIT',
  errorType: 'INSUFFICIENT_RESOURCES',
};

export const CATALOG_ERROR = { message: "line 1:15: Catalog 'nope' does not exist", errorCode: 44, errorName: 'CATALOG_NOT_FOUND', errorType: 'USER_ERROR' };

/** `SELECT version()`. */
export function versionExchanges(version = '438'): Exchange[] {
  const cols = [{ name: '_col0', type: 'varchar', typeSignature: sig('varchar', [{ kind: 'LONG', value: 2147483647 }]) }];
  return [
    { method: 'POST', path: '/v1/statement', status: 200, body: page({ nextUri: `${HOST}/v1/statement/queued/${ID}/v1/1`, stats: stats('QUEUED') }) },
    {
      method: 'GET',
      path: `/v1/statement/queued/${ID}/v1/1`,
      status: 200,
      body: page({ nextUri: `${HOST}/v1/statement/executing/${ID}/v1/0`, columns: cols, data: [[version]], stats: stats('RUNNING') }),
    },
    { method: 'GET', path: `/v1/statement/executing/${ID}/v1/0`, status: 200, body: page({ columns: cols, stats: stats('FINISHED') }) },
  ];
}

/** The information_schema read of a schema refresh. */
export function schemaExchanges(): Exchange[] {
  const cols = ['table_schema', 'table_name', 'column_name', 'data_type'].map((name) => ({ name, type: 'varchar', typeSignature: sig('varchar') }));
  return [
    { method: 'POST', path: '/v1/statement', status: 200, body: page({ nextUri: `${HOST}/v1/statement/queued/${ID}/s1/1`, stats: stats('QUEUED') }) },
    {
      method: 'GET',
      path: `/v1/statement/queued/${ID}/s1/1`,
      status: 200,
      body: page({
        columns: cols,
        stats: stats('FINISHED'),
        data: [
          ['sales', 'orders', 'id', 'bigint'],
          ['sales', 'orders', 'placed_at', 'timestamp(3) with time zone'],
          ['sales', 'orders', 'total', 'decimal(10,2)'],
          ['sales', 'customers', 'email', 'varchar'],
          ['web', 'hits', 'tags', 'array(varchar)'],
        ],
      }),
    },
  ];
}

/** The id of the recorded query and the nextUri to cancel it with (a running query's page). */
export const RUNNING_ID = ID;
export const RUNNING_PAGE = (n: number) => page({ nextUri: `${HOST}/v1/statement/executing/${ID}/c1/${n + 1}`, stats: stats('RUNNING') });
export const CANCELLED_PAGE = page({
  stats: stats('FAILED'),
  error: { message: 'Query was canceled', errorCode: 3, errorName: 'USER_CANCELED', errorType: 'USER_ERROR' },
});
