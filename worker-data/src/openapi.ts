import { API_VERSION, DATA_TYPES, ERROR_CODES, JSONAPI_MEDIA_TYPE, type DataType } from '@cairn/core';
import { MAX_PAGE_ROWS } from './paging.ts';
import { MEDIA } from './formats.ts';

/**
 * The data server's OpenAPI 3.1 document, served at `GET /openapi.json`. Written by hand (the server
 * has no zod routes), from the same constants the routes use: data types, error codes, page limits
 * and media types. Cells are typed per field data type: `CellValues` has one member per data type
 * (how worker-api/src/engine/types.ts writes a value of that type as JSON), `Cell` is any of them.
 */

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (s: Schema): Schema => ({ ...s, type: [s.type as string, 'null'] });

/** How one value of each base data type is written in `rows`; null is a NULL of the database. */
const BASE_CELLS: Record<(typeof DATA_TYPES)[number], Schema> = {
  Boolean: nullable({ type: 'boolean' }),
  Integer: nullable({ type: 'integer' }),
  BigInt: { type: ['integer', 'string', 'null'], description: 'A number while it is a safe integer (below 2^53), else its exact digits as a string.' },
  Float: nullable({ type: 'number', description: 'Decimals keep their exact digits; NaN and infinities are null.' }),
  String: nullable({ type: 'string' }),
  JSON: { description: 'The JSON value as stored.' },
  DateTime: nullable({ type: 'string', description: '`YYYY-MM-DDTHH:MM:SS[.fraction]Z`, in UTC.', example: '2024-06-01T08:30:00Z' }),
  Date: nullable({ type: 'string', description: '`YYYY-MM-DD`.', example: '2024-06-01' }),
  Time: nullable({ type: 'string', description: '`HH:MM:SS[.fraction]`, with its offset for a time with time zone.', example: '08:30:00' }),
  Binary: nullable({ type: 'string', contentEncoding: 'base64', description: 'The bytes in base64.' }),
  Internal: { type: ['integer', 'string', 'null'], description: 'A system identifier: a number (oid) or its text.' },
  Other: nullable({ type: 'string', description: "The database's text form of the value." }),
};

export const CELL_DATA_TYPES: DataType[] = [...DATA_TYPES, ...DATA_TYPES.map((t) => `Array<${t}>` as const), 'Record'];

function cellValues(): Schema {
  const properties: Record<string, Schema> = {};
  for (const t of DATA_TYPES) properties[t] = BASE_CELLS[t];
  for (const t of DATA_TYPES) properties[`Array<${t}>`] = { type: ['array', 'null'], items: BASE_CELLS[t] };
  properties.Record = { type: ['object', 'null'], additionalProperties: true };
  return {
    type: 'object',
    description: 'How a value of each field data type is written in `rows`: the cell of a field of data type T has the schema of member T.',
    properties,
    required: Object.keys(properties),
  };
}

const errorsSchema: Schema = {
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['status', 'code', 'title', 'detail'],
        properties: {
          status: { type: 'string' },
          code: { type: 'string', enum: Object.keys(ERROR_CODES) },
          title: { type: 'string' },
          detail: { type: 'string' },
          source: { type: 'object', properties: { pointer: { type: 'string' }, parameter: { type: 'string' }, header: { type: 'string' } } },
          meta: { type: 'object', additionalProperties: true },
        },
      },
    },
    jsonapi: { type: 'object', properties: { version: { type: 'string' } } },
  },
};

const ERROR_TEXT: Record<number, string> = {
  400: 'A bad query parameter, body or data key (invalid_query_parameter, bad_request, malformed_json)',
  401: 'No token, or a forged, expired or other-key token (unauthorized, invalid_data_token, data_token_expired)',
  403: 'The token, data key or organization belongs to the other region (wrong_region)',
  404: 'No result under this data key: results are kept for 24 hours (not_found)',
  415: 'The body is neither JSON nor a form (unsupported_media_type)',
  422: 'The body lacks data_access_token or has other members (missing_attribute, invalid_attribute, unknown_attribute)',
  429: 'Too many failed tokens from your address; see Retry-After (rate_limited)',
  503: 'The data server is briefly unavailable; retry with backoff (service_unavailable)',
};

const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: ERROR_TEXT[s], content: { [JSONAPI_MEDIA_TYPE]: { schema: ref('Errors') } } }]));

const dataKeyParam = {
  name: 'dataKey',
  in: 'path',
  required: true,
  description: "The data_key of the API's answer. It holds slashes: send it as it is (a URL-encoded key is read the same).",
  schema: { type: 'string', example: 'eu/org_4f0aB2cD9eFgH1iJkL3m/exe_4f0aB2cD9eFgH1iJkL3m/0a1b2c3d4e5f6a7b' },
};

const resultProperties: Record<string, Schema> = {
  fields: { type: 'array', items: ref('Field') },
  rows: { type: 'array', items: { type: 'array', items: ref('Cell') }, description: 'One array per row, one cell per field, in the order of `fields`.' },
  execution_id: { type: 'string', example: 'exe_4f0aB2cD9eFgH1iJkL3m' },
  data_timestamp: { type: 'string', format: 'date-time', description: 'When the query ran.' },
  size_in_bytes: { type: 'number' },
  time_zone: { type: 'string', example: 'Europe/Berlin', description: 'The zone the result was computed in.' },
};
const RESULT_REQUIRED = ['fields', 'rows', 'execution_id', 'data_timestamp', 'size_in_bytes', 'time_zone'];

/** The document; `origin` is the server's own base URL. */
export function dataServerDocument(origin: string, region: string): Schema {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Cairn data server',
      version: API_VERSION,
      description:
        'Hands out the results of queries run through the API server of the same region. Every call but /health and /openapi.json carries a data token issued by the API server; API keys are never accepted here.',
    },
    servers: [{ url: origin, description: `Data server (${region.toUpperCase()})` }],
    security: [{ DataToken: [] }],
    paths: {
      '/data/{dataKey}': {
        get: {
          tags: ['Data'],
          operationId: 'getData',
          summary: 'Fetch a result',
          description: `The stored result of a report or execution as JSON, or the CSV or XLSX file when the token was issued for a download. \`offset\` and \`limit\` page a JSON result (at most ${MAX_PAGE_ROWS.toLocaleString('en-US')} rows a page); the answer then also carries offset, limit and row_count.`,
          parameters: [
            dataKeyParam,
            { name: 'offset', in: 'query', required: false, description: 'The first row, from 0.', schema: { type: 'integer', minimum: 0 } },
            { name: 'limit', in: 'query', required: false, description: 'How many rows.', schema: { type: 'integer', minimum: 0, maximum: MAX_PAGE_ROWS } },
          ],
          responses: {
            200: {
              description: 'The result',
              content: {
                'application/json': { schema: ref('DataResult') },
                'text/csv': { schema: { type: 'string' } },
                [MEDIA.xlsx]: { schema: { type: 'string', format: 'binary' } },
              },
            },
            ...errors(400, 401, 403, 404, 429, 503),
          },
        },
      },
      '/schema/{dataKey}': {
        get: {
          tags: ['Data'],
          operationId: 'getSchema',
          summary: 'Fetch a datasource schema',
          description:
            'The schemas, tables and columns of a datasource, as GET /datasources/{id}/schema of the API server prepared them. `name` picks one schema when the token names none.',
          parameters: [dataKeyParam, { name: 'name', in: 'query', required: false, description: 'One schema by name.', schema: { type: 'string' } }],
          responses: {
            200: { description: 'The schema document', content: { 'application/json': { schema: ref('SchemaDocument') } } },
            ...errors(400, 401, 403, 404, 429, 503),
          },
        },
      },
      '/process': {
        post: {
          tags: ['Data'],
          operationId: 'processData',
          summary: 'Download a dashboard',
          description:
            'The results named by a data process token (the data_process_token of POST /dashboards/{id}/data on the API server): one JSON document keyed by report id, a zip of CSV files or one XLSX workbook, as the token says. The token travels in the body, so a browser form can start the download.',
          security: [],
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: ref('ProcessRequest') },
              'application/x-www-form-urlencoded': { schema: ref('ProcessRequest') },
            },
          },
          responses: {
            200: {
              description: 'The download',
              content: {
                'application/json': { schema: ref('ProcessResult') },
                [MEDIA.zip]: { schema: { type: 'string', format: 'binary' } },
                [MEDIA.xlsx]: { schema: { type: 'string', format: 'binary' } },
              },
            },
            ...errors(400, 401, 403, 404, 415, 422, 429, 503),
          },
        },
      },
      '/exports/{jobId}': {
        get: {
          tags: ['Data'],
          operationId: 'getExportFile',
          summary: 'Download an export file',
          description:
            "The file of a finished export job: open the job's file_url as given (it carries the token), or send the token as `Authorization: Data <token>`.",
          security: [{ DataToken: [] }, {}],
          parameters: [
            { name: 'jobId', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', example: 'exp_4f0aB2cD9eFgH1iJkL3m' } },
            { name: 'token', in: 'query', required: false, description: 'The token of the file_url.', schema: { type: 'string' } },
          ],
          responses: {
            200: { description: 'The file (PDF, PNG or CSV)', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
            ...errors(400, 401, 403, 404, 429, 503),
          },
        },
      },
      '/health': {
        get: {
          tags: ['Server'],
          operationId: 'health',
          summary: 'Liveness',
          security: [],
          responses: {
            200: {
              description: 'The server is up',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['ok', 'service', 'region', 'version'],
                    properties: { ok: { type: 'boolean' }, service: { const: 'cairn-data' }, region: { type: 'string' }, version: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        DataToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The value is `Data <data access token>`.' },
      },
      schemas: {
        Field: {
          type: 'object',
          required: ['idx', 'name', 'data_type', 'unique_count', 'human_name', 'min_value', 'max_value', 'group_by'],
          properties: {
            idx: { type: 'integer', description: "The column's position, from 0." },
            name: { type: 'string' },
            data_type: { type: 'string', enum: CELL_DATA_TYPES, description: "Says how the field's cells are written: see CellValues." },
            unique_count: { type: ['integer', 'null'] },
            human_name: { type: 'string' },
            min_value: {},
            max_value: {},
            group_by: { type: 'boolean' },
          },
        },
        CellValues: cellValues(),
        Cell: {
          description: "One value; its form follows its field's data type (see CellValues).",
          anyOf: Object.values(cellValues().properties as Record<string, Schema>),
        },
        DataResult: {
          type: 'object',
          required: RESULT_REQUIRED,
          properties: {
            ...resultProperties,
            offset: { type: 'integer', description: 'With paging: the first row answered.' },
            limit: { type: 'integer', description: 'With paging: the rows asked for.' },
            row_count: { type: 'integer', description: 'With paging: the rows of the whole result.' },
          },
        },
        ProcessRequest: {
          type: 'object',
          required: ['data_access_token'],
          additionalProperties: false,
          properties: { data_access_token: { type: 'string', description: 'The data_process_token of POST /dashboards/{id}/data.' } },
        },
        ProcessPart: {
          type: 'object',
          required: ['report_id', 'name', 'data_key', ...RESULT_REQUIRED],
          properties: {
            report_id: { type: 'string', example: 'rep_4f0aB2cD9eFgH1iJkL3m' },
            name: { type: 'string' },
            data_key: { type: 'string' },
            ...resultProperties,
          },
        },
        ProcessResult: {
          type: 'object',
          description: 'One member per report, keyed by its id.',
          additionalProperties: ref('ProcessPart'),
        },
        SchemaDocument: {
          type: 'object',
          required: ['schemas'],
          additionalProperties: true,
          properties: {
            schemas: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'tables'],
                additionalProperties: true,
                properties: {
                  name: { type: 'string' },
                  tables: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['name', 'columns'],
                      additionalProperties: true,
                      properties: {
                        name: { type: 'string' },
                        columns: {
                          type: 'array',
                          items: {
                            type: 'object',
                            required: ['name', 'db_type', 'data_type'],
                            additionalProperties: true,
                            properties: { name: { type: 'string' }, db_type: { type: 'string' }, data_type: { type: 'string', enum: CELL_DATA_TYPES } },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        Errors: errorsSchema,
      },
    },
  };
}
