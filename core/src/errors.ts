/**
 * The one error type of Cairn. Services throw it; each worker's error handler turns it into the
 * JSON:API envelope `{ errors: [{ status, code, title, detail, source, meta }] }`.
 * Codes are stable strings that clients may branch on; the catalogue is documented in the API reference.
 */
export const ERROR_CODES = {
  bad_request: 400,
  invalid_include: 400,
  invalid_query_parameter: 400,
  malformed_json: 400,
  unauthorized: 401,
  invalid_api_key: 401,
  api_key_disabled: 401,
  invalid_data_token: 401,
  data_token_expired: 401,
  wrong_region: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  unsupported_media_type: 415,
  invalid_attribute: 422,
  read_only_attribute: 422,
  unknown_attribute: 422,
  missing_attribute: 422,
  invalid_relationship: 422,
  plan_limit: 422,
  invalid_state: 422,
  query_error: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorSource {
  pointer?: string;
  parameter?: string;
  header?: string;
}

export interface ErrorObject {
  status: string;
  code: ErrorCode;
  title: string;
  detail: string;
  source?: ErrorSource;
  meta?: Record<string, unknown>;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  415: 'Unsupported Media Type',
  422: 'Unprocessable',
  429: 'Too Many Requests',
  500: 'Internal Error',
  503: 'Unavailable',
};

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly source?: ErrorSource;
  readonly meta?: Record<string, unknown>;
  /** Further problems reported together with this one (for example several invalid attributes). */
  readonly more: ApiError[];

  constructor(code: ErrorCode, detail: string, opts: { source?: ErrorSource; meta?: Record<string, unknown>; more?: ApiError[] } = {}) {
    super(detail);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CODES[code];
    this.source = opts.source;
    this.meta = opts.meta;
    this.more = opts.more ?? [];
  }

  toObjects(): ErrorObject[] {
    return [this, ...this.more].map((e) => ({
      status: String(e.status),
      code: e.code,
      title: TITLES[e.status] ?? 'Error',
      detail: e.message,
      ...(e.source ? { source: e.source } : {}),
      ...(e.meta ? { meta: e.meta } : {}),
    }));
  }
}

export const notFound = (type: string, id: string) =>
  new ApiError('not_found', `No ${type} with id "${id}" exists in this organization.`, {
    source: { parameter: 'id' },
  });

export const forbidden = (detail: string) => new ApiError('forbidden', detail);

export function errorDocument(errors: ErrorObject[], requestId?: string) {
  return {
    errors: requestId ? errors.map((e) => ({ ...e, meta: { ...e.meta, request_id: requestId } })) : errors,
    jsonapi: { version: '1.0' },
  };
}

// Connection-level failures (socket errors of postgres.js; SQLSTATE class 08 connection exceptions,
// 53 insufficient resources such as too_many_connections, 57P0x shutdowns) mean "try again later".
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);
// The same failure can arrive wrapped (drizzle's query error keeps the driver's error as `cause`) or, after
// crossing a Durable Object's RPC boundary, as a plain Error whose message is all that is left of it.
const UNAVAILABLE_MESSAGES =
  /too many clients|remaining connection slots|the database system is (starting up|shutting down)|connection terminated unexpectedly/i;
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^(08|53|57P0)/.test(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  }
  return false;
}
