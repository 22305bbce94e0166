import { describe, expect, it } from 'vitest';
import { exportPKCS8, exportSPKI, generateKeyPair, importSPKI, jwtVerify } from 'jose';
import {
  AthenaConnector,
  BigqueryConnector,
  ConnectorError,
  DatabricksConnector,
  SnowflakeConnector,
  executionStatusOf,
  type CancelHandle,
  type ConnectionSettings,
} from './index.ts';
import type { Fetcher } from './http-common.ts';
import { collect, failure, sleep } from '../../../test/connectors-fixtures.ts';
import * as R from '../../../test/recordings/warehouses.ts';

/**
 * The Snowflake, BigQuery, Databricks and Athena connectors against recorded exchanges that follow
 * each vendor's published API (test/recordings/warehouses.ts): a substituted fetch checks each request
 * against the next recorded one and answers with the recorded response. None of these services can be
 * reached from the test machines, so these recordings are the proof, and the docs say so.
 */
interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

function replay(exchanges: R.Exchange[]): { fetcher: Fetcher; seen: Seen[]; left: () => number } {
  const queue = [...exchanges];
  const seen: Seen[] = [];
  const fetcher: Fetcher = async (url, init = {}) => {
    const headers = Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
    seen.push({ method: init.method ?? 'GET', url, headers, body: typeof init.body === 'string' ? init.body : undefined });
    const next = queue.shift();
    if (!next) throw new Error(`unexpected request ${init.method} ${url}`);
    const u = new URL(url);
    expect(init.method ?? 'GET').toBe(next.method);
    if (typeof next.url === 'string') expect(next.url.startsWith('https://') ? url : `${u.pathname}${u.search}`).toBe(next.url);
    else expect(`${u.pathname}${u.search}`).toMatch(next.url);
    if (next.target) expect(headers['x-amz-target']).toBe(`AmazonAthena.${next.target}`);
    return new Response(JSON.stringify(next.body), { status: next.status, headers: { 'content-type': 'application/json' } });
  };
  return { fetcher, seen, left: () => queue.length };
}
const noPause = async () => {};
const parse = (s?: string) => JSON.parse(s ?? 'null');

/** A fetch that keeps a statement running until its cancel request arrives. */
function running(
  onCancel: (url: string) => boolean,
  runningBody: (n: number) => { status: number; body: unknown },
  cancelledBody: { status: number; body: unknown },
  first?: { status: number; body: unknown },
) {
  let cancelledAt = false;
  let n = 0;
  const seen: string[] = [];
  const fetcher: Fetcher = async (url, init = {}) => {
    seen.push(`${init.method} ${url}`);
    if (onCancel(url)) {
      cancelledAt = true;
      return new Response('{}', { status: 200 });
    }
    if (url.includes('/token')) return new Response(JSON.stringify(R.BQ_TOKEN), { status: 200 });
    await sleep(10);
    const a = n === 0 && first ? first : cancelledAt ? cancelledBody : runningBody(n);
    n++;
    return new Response(JSON.stringify(a.body), { status: a.status });
  };
  return { fetcher, seen };
}

async function rsaPem() {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
  return { pem: await exportPKCS8(privateKey), spki: await exportSPKI(publicKey) };
}

describe('Snowflake connector (recorded SQL API v2 exchanges)', () => {
  const base: ConnectionSettings = {
    host: '',
    port: 443,
    user: 'cairn_reader',
    database: 'ANALYTICS',
    defaultSchema: 'PUBLIC',
    requireSsl: true,
    verifySsl: true,
    cloud: { snowflakeIdentifier: 'acme-analytics', snowflakeWarehouse: 'REPORTING_WH' },
  };
  const sf = (fetcher: Fetcher, over: Partial<ConnectionSettings> = {}) => new SnowflakeConnector({ ...base, ...over }, undefined, fetcher, noPause);

  it("key-pair JWT, async submit, polls the handle, reads both partitions and maps Snowflake's types and values", async () => {
    const { pem, spki } = await rsaPem();
    const { fetcher, seen, left } = replay(R.snowflakeSelect());
    const { summary, rows } = await collect(sf(fetcher, { password: pem }), 'SELECT * FROM ORDERS', { timeoutMs: 30_000, timeZone: 'Europe/Berlin' });
    expect(left()).toBe(0);
    expect(seen[0]!.url.startsWith(`${R.SF_HOST}/api/v2/statements?`)).toBe(true);
    expect(parse(seen[0]!.body)).toEqual({
      statement: 'SELECT * FROM ORDERS',
      timeout: 30,
      database: 'ANALYTICS',
      schema: 'PUBLIC',
      warehouse: 'REPORTING_WH',
      parameters: { TIMEZONE: 'Europe/Berlin', QUERY_TAG: 'cairn' },
    });
    expect(seen[0]!.headers['x-snowflake-authorization-token-type']).toBe('KEYPAIR_JWT');
    // The JWT: signed by the key, issuer ACCOUNT.USER.SHA256:<fingerprint of the public key>.
    const jwt = seen[0]!.headers.authorization!.replace(/^Bearer /, '');
    const { payload } = await jwtVerify(jwt, await importSPKI(spki, 'RS256'));
    const der = Uint8Array.from(atob(spki.replace(/-----[^-]+-----|\s/g, '')), (c) => c.charCodeAt(0));
    const fp = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', der))));
    expect(payload).toMatchObject({ iss: `ACME-ANALYTICS.CAIRN_READER.SHA256:${fp}`, sub: 'ACME-ANALYTICS.CAIRN_READER' });
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(3600);
    expect(Object.fromEntries(summary.columns.map((c) => [c.name, c.data_type]))).toEqual({
      ID: 'BigInt',
      PRICE: 'Float',
      RATIO: 'Float',
      NAME: 'String',
      OK: 'Boolean',
      DAY: 'Date',
      T: 'Time',
      AT_NTZ: 'DateTime',
      AT_TZ: 'DateTime',
      RAW: 'Binary',
      DOC: 'JSON',
      TAGS: 'Array<Other>',
    });
    expect(rows).toEqual([
      [
        '9007199254740993',
        12345.67,
        0.5,
        'café',
        true,
        '2024-02-29',
        '10:31:12.5',
        '2024-03-05T06:07:08.5Z',
        '2024-03-05T06:07:08Z',
        'AP9B',
        { a: [1, 2] },
        ['x', 'y'],
      ],
      [2, -0.5, null, '', false, '1970-01-01', '00:00:00', '1970-01-01T00:00:00Z', '2024-01-01T00:00:00Z', '', null, []],
      [3, null, null, null, null, null, null, null, null, null, null, null],
    ]);
  });

  it("a programmatic access token goes as itself; errors are the server's: query_error, timed_out, a refused login", async () => {
    const syntax = replay(R.snowflakeFails(R.SF_SYNTAX));
    const err = await failure(collect(sf(syntax.fetcher, { password: 'pat-secret' }), 'SELEC 1'));
    expect(syntax.seen[0]!.headers).toMatchObject({ authorization: 'Bearer pat-secret', 'x-snowflake-authorization-token-type': 'PROGRAMMATIC_ACCESS_TOKEN' });
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err).toMatchObject({ kind: 'query_error', status: 422, message: R.SF_SYNTAX.message });
    const slow = await failure(collect(sf(replay(R.snowflakeFails(R.SF_TIMEOUT)).fetcher, { password: 'p' }), 'SELECT 1', { timeoutMs: 2000 }));
    expect(slow).toMatchObject({ kind: 'timed_out' });
    const login = await sf(replay([{ method: 'POST', url: /statements/, status: 401, body: R.SF_BAD_JWT }]).fetcher, { password: 'p' }).testConnection();
    expect(login).toEqual({
      status: 'error',
      server_version: null,
      error_message: `Could not connect to acme-analytics.snowflakecomputing.com: Snowflake refused the login (HTTP 401: ${R.SF_BAD_JWT.message}).`,
    });
    expect(await sf(replay(R.snowflakeVersion()).fetcher, { password: 'p' }).testConnection()).toEqual({
      status: 'ok',
      error_message: null,
      server_version: '8.44.2',
    });
    const badKey = await sf(replay([]).fetcher, { password: '-----BEGIN PRIVATE KEY-----\nnotakey\n-----END PRIVATE KEY-----' }).testConnection();
    expect(badKey.error_message).toMatch(/not an RSA key in PKCS#8 PEM form/);
    const down = await sf(
      async () => {
        throw new Error('Network connection lost.');
      },
      { password: 'p' },
    ).testConnection();
    expect(down.error_message).toMatch(/^Could not connect to acme-analytics\.snowflakecomputing\.com: nothing accepts connections/);
    // A locator with its region: the region is part of the host.
    const region = replay(R.snowflakeVersion());
    await sf(region.fetcher, { password: 'p', cloud: { snowflakeIdentifier: 'xy12345', snowflakeRegion: 'eu-central-1' } }).testConnection();
    expect(new URL(region.seen[0]!.url).host).toBe('xy12345.eu-central-1.snowflakecomputing.com');
  });

  it('cancels by the statement handle, from another connector; refuses bound values without sending anything', async () => {
    const { fetcher, seen } = running(
      (u) => u.endsWith('/cancel'),
      () => ({ status: 202, body: { code: '333334', statementHandle: R.SF_HANDLE } }),
      { status: 422, body: { code: '000604', message: 'SQL execution canceled', statementHandle: R.SF_HANDLE } },
    );
    let handle: CancelHandle | null = null;
    const run = failure(collect(sf(fetcher, { password: 'p' }), 'SELECT SYSTEM$WAIT(60)', { onCancelHandle: (h) => void (handle = h) }));
    while (!handle) await sleep(5);
    expect(handle).toEqual({ family: 'snowflake', statement_handle: R.SF_HANDLE });
    expect(await sf(fetcher, { password: 'p' }).cancel(handle!)).toBe(true);
    expect(executionStatusOf(await run)).toBe('cancelled');
    expect(seen).toContain(`POST ${R.SF_HOST}/api/v2/statements/${R.SF_HANDLE}/cancel`);
    expect(await sf(fetcher).cancel({ family: 'snowflake', statement_handle: '../../x' })).toBe(false);
    const none = replay([]);
    const bound = await failure(collect(sf(none.fetcher, { password: 'p' }), { text: 'SELECT ?', values: [1] }));
    expect(bound).toMatchObject({ kind: 'query_error', message: expect.stringMatching(/^Snowflake datasources cannot run queries with bound values/) });
    expect(none.seen).toHaveLength(0);
  });
});

describe('BigQuery connector (recorded REST API exchanges)', () => {
  const keyOf = async () => {
    const { pem, spki } = await rsaPem();
    return {
      spki,
      key: JSON.stringify({
        type: 'service_account',
        project_id: R.BQ_PROJECT,
        client_email: 'cairn@acme-analytics.iam.gserviceaccount.com',
        private_key: pem,
        token_uri: 'https://oauth2.googleapis.com/token',
      }),
    };
  };
  const bq = async (fetcher: Fetcher, key?: string, over: Partial<ConnectionSettings> = {}) =>
    new BigqueryConnector(
      {
        host: '',
        port: 443,
        user: '',
        requireSsl: true,
        verifySsl: true,
        defaultSchema: 'sales',
        cloud: { bigqueryServiceKey: key ?? (await keyOf()).key },
        ...over,
      },
      undefined,
      fetcher,
      noPause,
    );

  it("gets a token with a signed assertion, runs jobs.query, polls getQueryResults in the job's location, pages by pageToken, maps types", async () => {
    const { key, spki } = await keyOf();
    const { fetcher, seen, left } = replay(R.bigquerySelect());
    const { summary, rows } = await collect(await bq(fetcher, key), 'SELECT * FROM orders', { timeoutMs: 30_000, timeZone: 'Europe/Berlin' });
    expect(left()).toBe(0);
    const form = new URLSearchParams(seen[0]!.body);
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const { payload } = await jwtVerify(form.get('assertion')!, await importSPKI(spki, 'RS256'));
    expect(payload).toMatchObject({
      iss: 'cairn@acme-analytics.iam.gserviceaccount.com',
      aud: 'https://oauth2.googleapis.com/token',
      scope: 'https://www.googleapis.com/auth/bigquery',
    });
    expect(seen[1]!.headers.authorization).toBe(`Bearer ${R.BQ_TOKEN.access_token}`);
    expect(parse(seen[1]!.body)).toMatchObject({
      query: 'SELECT * FROM orders',
      useLegacySql: false,
      jobTimeoutMs: '30000',
      formatOptions: { useInt64Timestamp: true },
      connectionProperties: [{ key: 'time_zone', value: 'Europe/Berlin' }],
      defaultDataset: { projectId: R.BQ_PROJECT, datasetId: 'sales' },
    });
    expect(new URL(seen[2]!.url).searchParams.get('location')).toBe('EU');
    expect(new URL(seen[3]!.url).searchParams.get('location')).toBe('EU');
    expect(Object.fromEntries(summary.columns.map((c) => [c.name, c.data_type]))).toEqual({
      id: 'BigInt',
      price: 'Float',
      ratio: 'Float',
      name: 'String',
      ok: 'Boolean',
      day: 'Date',
      at: 'DateTime',
      local: 'DateTime',
      raw: 'Binary',
      tags: 'Array<String>',
      pair: 'Record',
      doc: 'JSON',
    });
    expect(rows).toEqual([
      [
        '9007199254740993',
        12345.67,
        0.5,
        'café',
        true,
        '2024-02-29',
        '2024-03-05T06:07:08.5Z',
        '2024-03-05T06:07:08.5Z',
        'AP9B',
        ['x', 'y'],
        { a: 7, b: 'z' },
        { a: [1, 2] },
      ],
      [2, -0.5, null, '', false, '1970-01-01', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '', [], null, null],
      [3, null, null, null, null, null, null, null, null, [], null, null],
    ]);
  });

  it("errors in Google's words: invalidQuery is a query_error, a refused key is the connection's", async () => {
    const err = await failure(
      collect(
        await bq(
          replay([
            { method: 'POST', url: 'https://oauth2.googleapis.com/token', status: 200, body: R.BQ_TOKEN },
            { method: 'POST', url: `/bigquery/v2/projects/${R.BQ_PROJECT}/queries`, status: 400, body: R.BQ_SYNTAX },
          ]).fetcher,
        ),
        'SELEC 1',
      ),
    );
    expect(err).toMatchObject({ kind: 'query_error', message: R.BQ_SYNTAX.error.message });
    const refused = await (
      await bq(replay([{ method: 'POST', url: 'https://oauth2.googleapis.com/token', status: 400, body: R.BQ_BAD_GRANT }]).fetcher)
    ).testConnection();
    expect(refused).toEqual({
      status: 'error',
      server_version: null,
      error_message:
        'Could not connect to BigQuery: Google refused the service account cairn@acme-analytics.iam.gserviceaccount.com (HTTP 400: Invalid JWT Signature.).',
    });
    const ok = await (
      await bq(
        replay([
          { method: 'POST', url: 'https://oauth2.googleapis.com/token', status: 200, body: R.BQ_TOKEN },
          {
            method: 'POST',
            url: `/bigquery/v2/projects/${R.BQ_PROJECT}/queries`,
            status: 200,
            body: {
              jobReference: { projectId: R.BQ_PROJECT, jobId: 'j1', location: 'US' },
              jobComplete: true,
              schema: { fields: [{ name: 'f0_', type: 'INTEGER' }] },
              rows: [{ f: [{ v: '1' }] }],
              totalRows: '1',
            },
          },
        ]).fetcher,
      )
    ).testConnection();
    expect(ok).toEqual({ status: 'ok', error_message: null, server_version: 'BigQuery (GoogleSQL)' });
  });

  it("cancels with jobs.cancel in the job's location", async () => {
    const { key } = await keyOf();
    const { fetcher, seen } = running(
      (u) => u.includes('/cancel'),
      () => ({ status: 200, body: { jobReference: { projectId: R.BQ_PROJECT, jobId: R.BQ_JOB, location: 'EU' }, jobComplete: false } }),
      {
        status: 400,
        body: {
          error: {
            code: 400,
            message: 'Job execution was cancelled: User requested cancellation',
            errors: [{ reason: 'stopped', message: 'Job execution was cancelled: User requested cancellation' }],
          },
        },
      },
    );
    let handle: CancelHandle | null = null;
    const run = failure(collect(await bq(fetcher, key), 'SELECT 1', { onCancelHandle: (h) => void (handle = h) }));
    while (!handle) await sleep(5);
    expect(handle).toEqual({ family: 'bigquery', project_id: R.BQ_PROJECT, job_id: R.BQ_JOB, location: 'EU' });
    expect(await (await bq(fetcher, key)).cancel(handle!)).toBe(true);
    expect(executionStatusOf(await run)).toBe('cancelled');
    expect(seen).toContain(`POST https://bigquery.googleapis.com/bigquery/v2/projects/${R.BQ_PROJECT}/jobs/${R.BQ_JOB}/cancel?location=EU`);
  });
});

describe('Databricks connector (recorded Statement Execution API exchanges)', () => {
  const base: ConnectionSettings = {
    host: 'dbc-a1b2c3d4-e5f6.cloud.databricks.com',
    port: 443,
    user: '',
    password: 'dapi0123456789abcdef',
    database: 'main',
    defaultSchema: 'sales',
    requireSsl: true,
    verifySsl: true,
    cloud: { databricksHttpPath: '/sql/1.0/warehouses/8f9e7d6c5b4a3921', databricksAuthMode: 'pat' },
  };
  const dbx = (fetcher: Fetcher, over: Partial<ConnectionSettings> = {}) => new DatabricksConnector({ ...base, ...over }, undefined, fetcher, noPause);

  it('personal access token: INLINE JSON_ARRAY, polled, chunks followed by their links, types mapped', async () => {
    const { fetcher, seen, left } = replay(R.databricksSelect());
    const { summary, rows } = await collect(dbx(fetcher), 'SELECT * FROM orders');
    expect(left()).toBe(0);
    expect(seen[0]!.url).toBe(`${R.DBX_HOST}/api/2.0/sql/statements`);
    expect(seen[0]!.headers.authorization).toBe('Bearer dapi0123456789abcdef');
    expect(parse(seen[0]!.body)).toEqual({
      statement: 'SELECT * FROM orders',
      warehouse_id: '8f9e7d6c5b4a3921',
      wait_timeout: '0s',
      on_wait_timeout: 'CONTINUE',
      disposition: 'INLINE',
      format: 'JSON_ARRAY',
      catalog: 'main',
      schema: 'sales',
    });
    expect(Object.fromEntries(summary.columns.map((c) => [c.name, c.data_type]))).toEqual({
      id: 'Integer',
      big: 'BigInt',
      price: 'Float',
      ratio: 'Float',
      name: 'String',
      ok: 'Boolean',
      day: 'Date',
      at: 'DateTime',
      tags: 'Array<Other>',
      pair: 'Record',
    });
    expect(rows).toEqual([
      [1, '9007199254740993', 12345.67, 0.5, 'café', true, '2024-02-29', '2024-03-05T06:07:08.5Z', ['x', 'y'], { a: 7, b: 'z' }],
      [2, -5, -0.5, null, '', false, '1970-01-01', '1970-01-01T00:00:00Z', [], null],
      [3, null, null, null, null, null, null, null, null, null],
    ]);
  });

  it("OAuth M2M: client credentials at /oidc/v1/token; an expired secret is said plainly; a failed statement is the server's message", async () => {
    const { fetcher, seen } = replay([
      {
        method: 'POST',
        url: `${R.DBX_HOST}/oidc/v1/token`,
        status: 200,
        body: { access_token: 'eyJraWQiOi-recorded', token_type: 'Bearer', expires_in: 3600, scope: 'all-apis' },
      },
      { method: 'POST', url: '/api/2.0/sql/statements', status: 200, body: { statement_id: R.DBX_ID, status: { state: 'FAILED', error: R.DBX_SYNTAX } } },
    ]);
    const oauth = {
      databricksHttpPath: '/sql/1.0/warehouses/8f9e7d6c5b4a3921',
      databricksAuthMode: 'oauth_m2m' as const,
      databricksAuthExpiresAt: new Date(Date.now() + 86_400_000),
    };
    const err = await failure(collect(dbx(fetcher, { user: 'c0ffee-client', password: 'dose-secret', cloud: oauth }), 'SELEC 1'));
    expect(seen[0]!.headers.authorization).toBe(`Basic ${btoa('c0ffee-client:dose-secret')}`);
    expect(seen[0]!.body).toBe('grant_type=client_credentials&scope=all-apis');
    expect(seen[1]!.headers.authorization).toBe('Bearer eyJraWQiOi-recorded');
    expect(err).toMatchObject({ kind: 'query_error', message: R.DBX_SYNTAX.message });
    const expired = await dbx(replay([]).fetcher, {
      user: 'c',
      password: 's',
      cloud: { ...oauth, databricksAuthExpiresAt: new Date('2026-01-01T00:00:00Z') },
    }).testConnection();
    expect(expired.error_message).toMatch(/the OAuth secret expired on 2026-01-01T00:00:00\.000Z/);
    const refused = await dbx(
      replay([{ method: 'POST', url: '/api/2.0/sql/statements', status: 403, body: { error_code: 'PERMISSION_DENIED', message: 'Invalid access token.' } }])
        .fetcher,
    ).testConnection();
    expect(refused.error_message).toBe(
      'Could not connect to dbc-a1b2c3d4-e5f6.cloud.databricks.com:443: Databricks refused the login (HTTP 403: Invalid access token.).',
    );
    const cluster = await dbx(replay([]).fetcher, {
      cloud: { databricksHttpPath: '/sql/protocolv1/o/1234567890/0123-456789-abcdefgh', databricksAuthMode: 'pat' },
    }).testConnection();
    expect(cluster.error_message).toMatch(/not the HTTP path of a SQL warehouse/);
  });

  it("cancels by statement id; the statement timeout is the guard's (the API has none per statement)", async () => {
    const { fetcher, seen } = running(
      (u) => u.endsWith('/cancel'),
      () => ({ status: 200, body: { statement_id: R.DBX_ID, status: { state: 'RUNNING' } } }),
      { status: 200, body: { statement_id: R.DBX_ID, status: { state: 'CANCELED' } } },
    );
    let handle: CancelHandle | null = null;
    const run = failure(collect(dbx(fetcher), 'SELECT 1', { onCancelHandle: (h) => void (handle = h) }));
    while (!handle) await sleep(5);
    expect(await dbx(fetcher).cancel(handle!)).toBe(true);
    expect(executionStatusOf(await run)).toBe('cancelled');
    expect(seen).toContain(`POST ${R.DBX_HOST}/api/2.0/sql/statements/${R.DBX_ID}/cancel`);
    const slow = running(
      (u) => u.endsWith('/cancel'),
      () => ({ status: 200, body: { statement_id: R.DBX_ID, status: { state: 'RUNNING' } } }),
      { status: 200, body: { statement_id: R.DBX_ID, status: { state: 'CANCELED' } } },
    );
    const late = await failure(collect(dbx(slow.fetcher), 'SELECT 1', { timeoutMs: 100 }));
    expect(late).toMatchObject({ kind: 'timed_out' });
    expect(slow.seen.some((s) => s.endsWith('/cancel'))).toBe(true);
  });
});

describe('Athena connector (recorded API exchanges, SigV4 by aws4fetch)', () => {
  const base: ConnectionSettings = {
    host: '',
    port: 443,
    user: 'AKIAIOSFODNN7EXAMPLE',
    password: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    database: 'sales',
    requireSsl: true,
    verifySsl: true,
    cloud: { athenaRegion: 'eu-west-1', athenaWorkgroup: 'analysts', athenaOutputLocation: 's3://acme-athena-results/cairn/' },
  };
  const athena = (fetcher: Fetcher, over: Partial<ConnectionSettings> = {}) => new AthenaConnector({ ...base, ...over }, undefined, fetcher, noPause);

  it('signs each call, starts the query in the workgroup with the output location, polls, pages by NextToken, skips the header row', async () => {
    const { fetcher, seen, left } = replay(R.athenaSelect());
    const { summary, rows } = await collect(athena(fetcher), 'SELECT * FROM orders');
    expect(left()).toBe(0);
    expect(seen[0]!.url).toBe('https://athena.eu-west-1.amazonaws.com/');
    expect(seen[0]!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-west-1\/athena\/aws4_request, SignedHeaders=[a-z0-9;-]*x-amz-target[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
    );
    expect(parse(seen[0]!.body)).toMatchObject({
      QueryString: 'SELECT * FROM orders',
      WorkGroup: 'analysts',
      ResultConfiguration: { OutputLocation: 's3://acme-athena-results/cairn/' },
      QueryExecutionContext: { Catalog: 'AwsDataCatalog', Database: 'sales' },
    });
    expect(parse(seen[5]!.body)).toEqual({ QueryExecutionId: R.ATHENA_ID, MaxResults: 1000, NextToken: 'AUwn3ZNqc1lS0NSVfTEXAMPLETOKEN' });
    expect(Object.fromEntries(summary.columns.map((c) => [c.name, c.data_type]))).toEqual({
      id: 'Integer',
      big: 'BigInt',
      price: 'Float',
      ratio: 'Float',
      name: 'String',
      ok: 'Boolean',
      day: 'Date',
      at: 'DateTime',
      tags: 'Other',
    });
    expect(rows).toEqual([
      [1, '9007199254740993', 12345.67, 0.5, 'café', true, '2024-02-29', '2024-03-05T06:07:08.5Z', '[x, y]'],
      [2, -5, -0.5, null, '', false, '1970-01-01', '1970-01-01T00:00:00Z', '[]'],
      [3, null, null, null, null, null, null, null, null],
    ]);
  });

  it("a failed query is a query_error with Athena's reason; a syntax error too; a bad key fails the connection test in AWS's words", async () => {
    const failed = await failure(collect(athena(replay(R.athenaFailed()).fetcher), 'SELECT * FROM nope'));
    expect(failed).toMatchObject({ kind: 'query_error', message: "TABLE_NOT_FOUND: line 1:15: Table 'awsdatacatalog.sales.nope' does not exist" });
    const syntax = await failure(
      collect(athena(replay([{ method: 'POST', url: '/', target: 'StartQueryExecution', status: 400, body: R.ATHENA_SYNTAX }]).fetcher), 'SELEC 1'),
    );
    expect(syntax).toMatchObject({ kind: 'query_error', message: R.ATHENA_SYNTAX.Message });
    const bad = await athena(replay([{ method: 'POST', url: '/', target: 'GetWorkGroup', status: 400, body: R.ATHENA_BAD_KEY }]).fetcher).testConnection();
    expect(bad).toEqual({
      status: 'error',
      server_version: null,
      error_message:
        'Could not connect to athena.eu-west-1.amazonaws.com: AWS refused the request (UnrecognizedClientException: The security token included in the request is invalid.).',
    });
    const ok = replay([{ method: 'POST', url: '/', target: 'GetWorkGroup', status: 200, body: R.ATHENA_WORKGROUP }]);
    expect(await athena(ok.fetcher).testConnection()).toEqual({ status: 'ok', error_message: null, server_version: 'Athena engine version 3' });
    expect(parse(ok.seen[0]!.body)).toEqual({ WorkGroup: 'analysts' });
  });

  it('cancels with StopQueryExecution; the statement timeout stops the query too', async () => {
    let stops = 0;
    let state = 'RUNNING';
    const fetcher: Fetcher = async (_url, init = {}) => {
      const target = (init.headers as Record<string, string>)['x-amz-target'];
      if (target === 'AmazonAthena.StopQueryExecution') {
        stops++;
        state = 'CANCELLED';
        return new Response('{}', { status: 200 });
      }
      await sleep(10);
      if (target === 'AmazonAthena.StartQueryExecution') return new Response(JSON.stringify({ QueryExecutionId: R.ATHENA_ID }), { status: 200 });
      return new Response(JSON.stringify({ QueryExecution: { QueryExecutionId: R.ATHENA_ID, Status: { State: state } } }), { status: 200 });
    };
    let handle: CancelHandle | null = null;
    const run = failure(collect(athena(fetcher), 'SELECT 1', { onCancelHandle: (h) => void (handle = h) }));
    while (!handle) await sleep(5);
    expect(handle).toEqual({ family: 'athena', query_execution_id: R.ATHENA_ID });
    expect(await athena(fetcher).cancel(handle!)).toBe(true);
    expect(executionStatusOf(await run)).toBe('cancelled');
    state = 'RUNNING';
    const late = await failure(collect(athena(fetcher), 'SELECT 1', { timeoutMs: 100 }));
    expect(late).toMatchObject({ kind: 'timed_out' });
    expect(stops).toBe(2);
  });

  it('reads the schema with ListTableMetadata (columns and partition keys)', async () => {
    const { fetcher, seen } = replay([{ method: 'POST', url: '/', target: 'ListTableMetadata', status: 200, body: R.ATHENA_TABLES }]);
    const data = await athena(fetcher).schema();
    expect(parse(seen[0]!.body)).toEqual({ CatalogName: 'AwsDataCatalog', DatabaseName: 'sales', MaxResults: 50 });
    expect(data.schemas).toEqual([
      {
        name: 'sales',
        tables: [
          {
            name: 'orders',
            columns: [
              { name: 'id', db_type: 'bigint', data_type: 'BigInt' },
              { name: 'total', db_type: 'decimal(10,2)', data_type: 'Float' },
              { name: 'tags', db_type: 'array<string>', data_type: 'Array<String>' },
              { name: 'dt', db_type: 'string', data_type: 'String' },
            ],
          },
        ],
      },
    ]);
  });
});
