/**
 * `@cairn/client`: typed clients of the Cairn API server and data server, built with openapi-fetch on
 * types that openapi-typescript generates from the servers' OpenAPI documents (src/generated/).
 *
 * ```ts
 * const api = createApiClient({ baseUrl: 'https://api.eu.example.com', apiKey });
 * const { data, error } = await api.GET('/dashboards/{id}', { params: { path: { id } } });
 * ```
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components as ApiComponents, paths as ApiPaths } from './generated/api.ts';
import type { components as DataComponents, paths as DataPaths } from './generated/data.ts';
import { JSONAPI_OPERATIONS } from './generated/operations.ts';

export type { ApiPaths, ApiComponents, DataPaths, DataComponents };
/**
 * The media types whose bodies the clients type: JSON and JSON:API. A file answer (CSV, XLSX, zip) is
 * read with `parseAs: 'blob'` (or `'stream'`), which types it as such.
 */
export type JsonMedia = `${string}/json` | `${string}/${string}+json`;
export type ApiClient = Client<ApiPaths, JsonMedia>;
export type DataClient = Client<DataPaths, JsonMedia>;

/** A schema of the API document by name, e.g. `ApiSchema<'Dashboard'>`. */
export type ApiSchema<Name extends keyof ApiComponents['schemas']> = ApiComponents['schemas'][Name];
/** A schema of the data server's document by name, e.g. `DataSchema<'DataResult'>`. */
export type DataSchema<Name extends keyof DataComponents['schemas']> = DataComponents['schemas'][Name];
/** The error document every failed call answers. */
export type ErrorDocument = ApiSchema<'Errors'>;
/** A result field's data type (`Integer`, `Array<String>`, `Record`, …). */
export type DataType = DataSchema<'Field'>['data_type'];
/** How a cell of a field of data type `T` is written in `rows`: `CellOf<'Date'>` is `string | null`. */
export type CellOf<T extends DataType> = DataSchema<'CellValues'>[T];

export const JSONAPI_MEDIA_TYPE = 'application/vnd.api+json';

export interface ApiClientOptions {
  /** The API server of your organization's region, e.g. `https://api.eu.example.com`. */
  baseUrl: string;
  /** The API key (without the `Api ` scheme). */
  apiKey: string;
  /** A fetch to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
}

/**
 * Create, read, update and delete calls take JSON:API bodies: openapi-fetch sends JSON as
 * `application/json`, so the media type is set here for the calls whose documented body is JSON:API.
 */
const jsonApiBodies: Middleware = {
  onRequest({ request, schemaPath }) {
    if (request.body !== null && JSONAPI_OPERATIONS.has(`${request.method} ${schemaPath}`)) {
      request.headers.set('content-type', JSONAPI_MEDIA_TYPE);
    }
    return request;
  },
};

/** A client of the API server, authenticated with an API key. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const client = createClient<ApiPaths, JsonMedia>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Api ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use(jsonApiBodies);
  return client;
}

export interface DataClientOptions {
  /** The data server of the same region as the API server that issued the tokens. */
  baseUrl: string;
  fetch?: typeof globalThis.fetch;
}

/**
 * A client of the data server. Its calls carry a data token each (they expire within minutes): send
 * it with `dataAuthorization(token)` as the call's headers, or in the body of `POST /process`.
 */
export function createDataClient(options: DataClientOptions): DataClient {
  return createClient<DataPaths, JsonMedia>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** The `Authorization` header of a data server call. */
export function dataAuthorization(token: string): { authorization: string } {
  return { authorization: `Data ${token}` };
}

/** The cells of one column of a result, by field name (`undefined` when the result has no such field). */
export function column(result: Pick<DataSchema<'DataResult'>, 'fields' | 'rows'>, name: string): unknown[] | undefined {
  const field = result.fields.find((f) => f.name === name);
  return field ? result.rows.map((row) => row[field.idx]) : undefined;
}
