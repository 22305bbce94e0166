/**
 * Exchanges of the cloud warehouses' HTTP APIs, written down from each vendor's published reference:
 * the Snowflake SQL API v2 (docs.snowflake.com "Snowflake SQL API reference", "Handling responses"),
 * BigQuery's REST API v2 (jobs.query, jobs.getQueryResults, jobs.cancel, datasets.list; Google's
 * OAuth 2.0 service account flow), the Databricks SQL Statement Execution API 2.0 and Amazon Athena's
 * API (StartQueryExecution, GetQueryExecution, GetQueryResults, StopQueryExecution, GetWorkGroup,
 * ListTableMetadata). Request shapes, status codes, paging fields, type names and the way each writes
 * values (Snowflake: every value a string, dates as days and timestamps as epoch seconds; BigQuery:
 * `{f: [{v}]}` rows, timestamps as int64 microseconds; Databricks: JSON_ARRAY strings; Athena:
 * VarCharValue with a header row) follow those references. No real service is behind them: the
 * Snowflake, BigQuery, Databricks and Athena connectors are proven against these, not against real
 * accounts.
 */

export interface Exchange {
  method: 'GET' | 'POST';
  /** Host and path, and the query when it matters (`?` … compared as given). */
  url: string | RegExp;
  status: number;
  body: unknown;
  /** For Athena: the X-Amz-Target action. */
  target?: string;
}

// ---------------------------------------------------------------- Snowflake
export const SF_HOST = 'https://acme-analytics.snowflakecomputing.com';
export const SF_HANDLE = '01b2c3d4-0000-4a5b-0000-000123456789';
const sfRowType = [
  { name: 'ID', type: 'fixed', precision: 38, scale: 0, nullable: false },
  { name: 'PRICE', type: 'fixed', precision: 12, scale: 2, nullable: true },
  { name: 'RATIO', type: 'real', nullable: true },
  { name: 'NAME', type: 'text', length: 16777216, nullable: true },
  { name: 'OK', type: 'boolean', nullable: true },
  { name: 'DAY', type: 'date', nullable: true },
  { name: 'T', type: 'time', scale: 9, nullable: true },
  { name: 'AT_NTZ', type: 'timestamp_ntz', scale: 9, nullable: true },
  { name: 'AT_TZ', type: 'timestamp_tz', scale: 9, nullable: true },
  { name: 'RAW', type: 'binary', nullable: true },
  { name: 'DOC', type: 'variant', nullable: true },
  { name: 'TAGS', type: 'array', nullable: true },
];
export function snowflakeSelect(): Exchange[] {
  const status = `/api/v2/statements/${SF_HANDLE}`;
  return [
    {
      method: 'POST',
      url: /^\/api\/v2\/statements\?requestId=[0-9a-f-]{36}&async=true$/,
      status: 202,
      body: {
        code: '333334',
        message: 'Asynchronous execution in progress. Use provided query id to perform query monitoring and management.',
        statementHandle: SF_HANDLE,
        statementStatusUrl: status,
      },
    },
    {
      method: 'GET',
      url: status,
      status: 202,
      body: {
        code: '333334',
        message: 'Asynchronous execution in progress. Use provided query id to perform query monitoring and management.',
        statementHandle: SF_HANDLE,
        statementStatusUrl: status,
      },
    },
    {
      method: 'GET',
      url: status,
      status: 200,
      body: {
        resultSetMetaData: {
          numRows: 3,
          format: 'jsonv2',
          partitionInfo: [
            { rowCount: 2, uncompressedSize: 420 },
            { rowCount: 1, uncompressedSize: 200 },
          ],
          rowType: sfRowType,
        },
        data: [
          [
            '9007199254740993',
            '12345.67',
            '0.5',
            'café',
            'true',
            '19782',
            '37872.500000000',
            '1709618828.500000000',
            '1709618828.000000000 1500',
            '00ff41',
            '{\n  "a": [\n    1,\n    2\n  ]\n}',
            '[\n  "x",\n  "y"\n]',
          ],
          ['2', '-0.50', null, '', 'false', '0', '0.000000000', '0.000000000', '1704067200.000000000 1140', '', null, '[]'],
        ],
        code: '090001',
        statementStatusUrl: `${status}?requestId=x`,
        requestId: 'x',
        sqlState: '00000',
        statementHandle: SF_HANDLE,
        message: 'Statement executed successfully.',
        createdOn: 1709618828000,
      },
    },
    { method: 'GET', url: `${status}?partition=1`, status: 200, body: { data: [['3', null, null, null, null, null, null, null, null, null, null, null]] } },
  ];
}
export const SF_SYNTAX = {
  code: '001003',
  message: "SQL compilation error:\nsyntax error line 1 at position 0 unexpected 'SELEC'.",
  sqlState: '42000',
  statementHandle: SF_HANDLE,
};
export const SF_TIMEOUT = {
  code: '000630',
  message: 'Statement reached its statement or warehouse timeout of 2 second(s) and was canceled.',
  sqlState: '57014',
  statementHandle: SF_HANDLE,
};
export const SF_BAD_JWT = { code: '390144', message: 'JWT token is invalid. [0f7a7a0e-3a0d-4c6e-8f9b-1d2c3e4f5a6b]' };
export function snowflakeFails(error: object): Exchange[] {
  return [
    {
      method: 'POST',
      url: /^\/api\/v2\/statements\?/,
      status: 202,
      body: {
        code: '333334',
        message: 'Asynchronous execution in progress.',
        statementHandle: SF_HANDLE,
        statementStatusUrl: `/api/v2/statements/${SF_HANDLE}`,
      },
    },
    { method: 'GET', url: `/api/v2/statements/${SF_HANDLE}`, status: 422, body: error },
  ];
}
export function snowflakeVersion(): Exchange[] {
  return [
    {
      method: 'POST',
      url: /^\/api\/v2\/statements\?/,
      status: 202,
      body: { code: '333334', message: 'Asynchronous execution in progress.', statementHandle: SF_HANDLE },
    },
    {
      method: 'GET',
      url: `/api/v2/statements/${SF_HANDLE}`,
      status: 200,
      body: {
        resultSetMetaData: {
          numRows: 1,
          format: 'jsonv2',
          partitionInfo: [{ rowCount: 1, uncompressedSize: 10 }],
          rowType: [{ name: 'CURRENT_VERSION()', type: 'text', nullable: true }],
        },
        data: [['8.44.2']],
        code: '090001',
        statementHandle: SF_HANDLE,
        sqlState: '00000',
        message: 'Statement executed successfully.',
      },
    },
  ];
}

// ---------------------------------------------------------------- BigQuery
export const BQ_PROJECT = 'acme-analytics';
export const BQ_JOB = 'job_Zx8kP2m1QaTq7';
export const BQ_TOKEN = { access_token: 'ya29.c.b0AXv0zTP-recorded', expires_in: 3599, token_type: 'Bearer' };
const bqFields = [
  { name: 'id', type: 'INTEGER', mode: 'NULLABLE' },
  { name: 'price', type: 'NUMERIC', mode: 'NULLABLE' },
  { name: 'ratio', type: 'FLOAT', mode: 'NULLABLE' },
  { name: 'name', type: 'STRING', mode: 'NULLABLE' },
  { name: 'ok', type: 'BOOLEAN', mode: 'NULLABLE' },
  { name: 'day', type: 'DATE', mode: 'NULLABLE' },
  { name: 'at', type: 'TIMESTAMP', mode: 'NULLABLE' },
  { name: 'local', type: 'DATETIME', mode: 'NULLABLE' },
  { name: 'raw', type: 'BYTES', mode: 'NULLABLE' },
  { name: 'tags', type: 'STRING', mode: 'REPEATED' },
  {
    name: 'pair',
    type: 'RECORD',
    mode: 'NULLABLE',
    fields: [
      { name: 'a', type: 'INTEGER', mode: 'NULLABLE' },
      { name: 'b', type: 'STRING', mode: 'NULLABLE' },
    ],
  },
  { name: 'doc', type: 'JSON', mode: 'NULLABLE' },
];
const f = (...vs: unknown[]) => ({ f: vs.map((v) => ({ v })) });
const jobRef = { projectId: BQ_PROJECT, jobId: BQ_JOB, location: 'EU' };
export function bigquerySelect(): Exchange[] {
  const results = new RegExp(`^/bigquery/v2/projects/${BQ_PROJECT}/queries/${BQ_JOB}\\?`);
  return [
    { method: 'POST', url: 'https://oauth2.googleapis.com/token', status: 200, body: BQ_TOKEN },
    {
      method: 'POST',
      url: `/bigquery/v2/projects/${BQ_PROJECT}/queries`,
      status: 200,
      body: { kind: 'bigquery#queryResponse', jobReference: jobRef, jobComplete: false },
    },
    {
      method: 'GET',
      url: results,
      status: 200,
      body: {
        kind: 'bigquery#getQueryResultsResponse',
        etag: 'x',
        schema: { fields: bqFields },
        jobReference: jobRef,
        totalRows: '3',
        pageToken: 'BHTQ2AJMJAAQAAASAUIIBAEAAUNAICAKCAFCBMFOCU======',
        rows: [
          f(
            '9007199254740993',
            '12345.67',
            '0.5',
            'café',
            'true',
            '2024-02-29',
            '1709618828500000',
            '2024-03-05T06:07:08.5',
            'AP9B',
            [{ v: 'x' }, { v: 'y' }],
            { f: [{ v: '7' }, { v: 'z' }] },
            '{"a":[1,2]}',
          ),
          f('2', '-0.5', 'NaN', '', 'false', '1970-01-01', '0', '1970-01-01T00:00:00', '', [], null, null),
        ],
        totalBytesProcessed: '1024',
        jobComplete: true,
        cacheHit: false,
      },
    },
    {
      method: 'GET',
      url: /pageToken=BHTQ2AJMJAAQAAASAUIIBAEAAUNAICAKCAFCBMFOCU/,
      status: 200,
      body: {
        kind: 'bigquery#getQueryResultsResponse',
        schema: { fields: bqFields },
        jobReference: jobRef,
        totalRows: '3',
        rows: [f('3', null, null, null, null, null, null, null, null, [], null, null)],
        jobComplete: true,
      },
    },
  ];
}
export const BQ_SYNTAX = {
  error: {
    code: 400,
    message: 'Syntax error: Unexpected identifier "SELEC" at [1:1]',
    errors: [
      { message: 'Syntax error: Unexpected identifier "SELEC" at [1:1]', domain: 'global', reason: 'invalidQuery', location: 'q', locationType: 'parameter' },
    ],
    status: 'INVALID_ARGUMENT',
  },
};
export const BQ_BAD_GRANT = { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' };

// ---------------------------------------------------------------- Databricks
export const DBX_HOST = 'https://dbc-a1b2c3d4-e5f6.cloud.databricks.com';
export const DBX_ID = '01ef1234-5678-1a2b-9c3d-4e5f6a7b8c9d';
const dbxColumns = [
  { name: 'id', type_text: 'INT', type_name: 'INT', position: 0 },
  { name: 'big', type_text: 'BIGINT', type_name: 'LONG', position: 1 },
  { name: 'price', type_text: 'DECIMAL(12,2)', type_name: 'DECIMAL', position: 2, type_precision: 12, type_scale: 2 },
  { name: 'ratio', type_text: 'DOUBLE', type_name: 'DOUBLE', position: 3 },
  { name: 'name', type_text: 'STRING', type_name: 'STRING', position: 4 },
  { name: 'ok', type_text: 'BOOLEAN', type_name: 'BOOLEAN', position: 5 },
  { name: 'day', type_text: 'DATE', type_name: 'DATE', position: 6 },
  { name: 'at', type_text: 'TIMESTAMP', type_name: 'TIMESTAMP', position: 7 },
  { name: 'tags', type_text: 'ARRAY<STRING>', type_name: 'ARRAY', position: 8 },
  { name: 'pair', type_text: 'STRUCT<a: INT, b: STRING>', type_name: 'STRUCT', position: 9 },
];
export function databricksSelect(): Exchange[] {
  const st = `/api/2.0/sql/statements/${DBX_ID}`;
  const manifest = {
    format: 'JSON_ARRAY',
    schema: { column_count: dbxColumns.length, columns: dbxColumns },
    total_chunk_count: 2,
    total_row_count: 3,
    chunks: [
      { chunk_index: 0, row_offset: 0, row_count: 2 },
      { chunk_index: 1, row_offset: 2, row_count: 1 },
    ],
    truncated: false,
  };
  return [
    { method: 'POST', url: '/api/2.0/sql/statements', status: 200, body: { statement_id: DBX_ID, status: { state: 'PENDING' } } },
    { method: 'GET', url: st, status: 200, body: { statement_id: DBX_ID, status: { state: 'RUNNING' } } },
    {
      method: 'GET',
      url: st,
      status: 200,
      body: {
        statement_id: DBX_ID,
        status: { state: 'SUCCEEDED' },
        manifest,
        result: {
          chunk_index: 0,
          row_offset: 0,
          row_count: 2,
          next_chunk_index: 1,
          next_chunk_internal_link: `${st}/result/chunks/1`,
          data_array: [
            ['1', '9007199254740993', '12345.67', '0.5', 'café', 'true', '2024-02-29', '2024-03-05T06:07:08.500Z', '["x","y"]', '{"a":7,"b":"z"}'],
            ['2', '-5', '-0.50', 'NaN', '', 'false', '1970-01-01', '1970-01-01T00:00:00Z', '[]', null],
          ],
        },
      },
    },
    {
      method: 'GET',
      url: `${st}/result/chunks/1`,
      status: 200,
      body: { chunk_index: 1, row_offset: 2, row_count: 1, data_array: [['3', null, null, null, null, null, null, null, null, null]] },
    },
  ];
}
export const DBX_SYNTAX = {
  error_code: 'BAD_REQUEST',
  message: "[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'. SQLSTATE: 42601 (line 1, pos 0)\n\n== SQL ==\nSELEC 1\n^^^\n",
};

// ---------------------------------------------------------------- Athena
export const ATHENA_ID = 'a1b2c3d4-5678-90ab-cdef-0123456789ab';
const athenaInfo = [
  { Name: 'id', Type: 'integer' },
  { Name: 'big', Type: 'bigint' },
  { Name: 'price', Type: 'decimal', Precision: 12, Scale: 2 },
  { Name: 'ratio', Type: 'double' },
  { Name: 'name', Type: 'varchar' },
  { Name: 'ok', Type: 'boolean' },
  { Name: 'day', Type: 'date' },
  { Name: 'at', Type: 'timestamp' },
  { Name: 'tags', Type: 'array' },
].map((c) => ({ CatalogName: 'hive', SchemaName: '', TableName: '', Label: c.Name, Precision: 0, Scale: 0, Nullable: 'UNKNOWN', CaseSensitive: false, ...c }));
const vc = (...vs: (string | null)[]) => ({ Data: vs.map((v) => (v === null ? {} : { VarCharValue: v })) });
const execution = (State: string, extra: object = {}) => ({
  QueryExecution: {
    QueryExecutionId: ATHENA_ID,
    Query: 'SELECT …',
    StatementType: 'DML',
    WorkGroup: 'analysts',
    ResultConfiguration: { OutputLocation: `s3://acme-athena-results/cairn/${ATHENA_ID}.csv` },
    QueryExecutionContext: { Database: 'sales', Catalog: 'awsdatacatalog' },
    Status: { State, SubmissionDateTime: 1709618828.123, ...extra },
    EngineVersion: { SelectedEngineVersion: 'AUTO', EffectiveEngineVersion: 'Athena engine version 3' },
  },
});
export function athenaSelect(): Exchange[] {
  return [
    { method: 'POST', url: '/', target: 'StartQueryExecution', status: 200, body: { QueryExecutionId: ATHENA_ID } },
    { method: 'POST', url: '/', target: 'GetQueryExecution', status: 200, body: execution('QUEUED') },
    { method: 'POST', url: '/', target: 'GetQueryExecution', status: 200, body: execution('RUNNING') },
    { method: 'POST', url: '/', target: 'GetQueryExecution', status: 200, body: execution('SUCCEEDED', { CompletionDateTime: 1709618830.5 }) },
    {
      method: 'POST',
      url: '/',
      target: 'GetQueryResults',
      status: 200,
      body: {
        UpdateCount: 0,
        NextToken: 'AUwn3ZNqc1lS0NSVfTEXAMPLETOKEN',
        ResultSet: {
          ResultSetMetadata: { ColumnInfo: athenaInfo },
          Rows: [
            vc('id', 'big', 'price', 'ratio', 'name', 'ok', 'day', 'at', 'tags'),
            vc('1', '9007199254740993', '12345.67', '0.5', 'café', 'true', '2024-02-29', '2024-03-05 06:07:08.500', '[x, y]'),
            vc('2', '-5', '-0.50', 'NaN', '', 'false', '1970-01-01', '1970-01-01 00:00:00.000', '[]'),
          ],
        },
      },
    },
    {
      method: 'POST',
      url: '/',
      target: 'GetQueryResults',
      status: 200,
      body: {
        UpdateCount: 0,
        ResultSet: { ResultSetMetadata: { ColumnInfo: athenaInfo }, Rows: [vc('3', null, null, null, null, null, null, null, null)] },
      },
    },
  ];
}
export function athenaFailed(): Exchange[] {
  return [
    { method: 'POST', url: '/', target: 'StartQueryExecution', status: 200, body: { QueryExecutionId: ATHENA_ID } },
    {
      method: 'POST',
      url: '/',
      target: 'GetQueryExecution',
      status: 200,
      body: execution('FAILED', {
        StateChangeReason: "TABLE_NOT_FOUND: line 1:15: Table 'awsdatacatalog.sales.nope' does not exist",
        AthenaError: {
          ErrorCategory: 2,
          ErrorType: 1301,
          Retryable: false,
          ErrorMessage: "TABLE_NOT_FOUND: line 1:15: Table 'awsdatacatalog.sales.nope' does not exist",
        },
      }),
    },
  ];
}
export const ATHENA_BAD_KEY = { __type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
export const ATHENA_SYNTAX = {
  __type: 'InvalidRequestException',
  AthenaErrorCode: 'MALFORMED_QUERY',
  Message: "line 1:1: mismatched input 'SELEC'. Expecting: 'ALTER', 'ANALYZE', 'CALL', …",
};
export const ATHENA_WORKGROUP = {
  WorkGroup: {
    Name: 'analysts',
    State: 'ENABLED',
    Configuration: {
      ResultConfiguration: { OutputLocation: 's3://acme-athena-results/' },
      EnforceWorkGroupConfiguration: false,
      EngineVersion: { SelectedEngineVersion: 'AUTO', EffectiveEngineVersion: 'Athena engine version 3' },
    },
    CreationTime: 1700000000,
  },
};
export const ATHENA_TABLES = {
  TableMetadataList: [
    {
      Name: 'orders',
      TableType: 'EXTERNAL_TABLE',
      Columns: [
        { Name: 'id', Type: 'bigint' },
        { Name: 'total', Type: 'decimal(10,2)' },
        { Name: 'tags', Type: 'array<string>' },
      ],
      PartitionKeys: [{ Name: 'dt', Type: 'string' }],
    },
  ],
};
