import { ApiError, errorDocument, isDatabaseUnavailable, JSONAPI_MEDIA_TYPE, type ErrorCode } from '@cairn/core';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ZodError } from 'zod';
import type { AppEnv } from '../env.ts';

export function errorResponse(c: Context<AppEnv>, err: ApiError, headers: Record<string, string> = {}) {
  return c.body(JSON.stringify(errorDocument(err.toObjects(), c.get('requestId'))), err.status as 400, {
    'content-type': JSON_API_OR_JSON(c),
    ...headers,
  });
}

const JSON_API_OR_JSON = (c: Context) =>
  (c.req.header('accept') ?? '').includes('application/json') && !(c.req.header('accept') ?? '').includes(JSONAPI_MEDIA_TYPE)
    ? 'application/json'
    : JSONAPI_MEDIA_TYPE;

/** Zod issues → one 422 error per issue, each pointing at the offending member. */
export function fromZod(error: ZodError, base: string, target: 'pointer' | 'parameter' = 'pointer'): ApiError {
  const errs = error.issues.map((issue) => {
    const path = issue.path.map(String);
    // zod 4 leaves `input` off its issues unless asked, so an absent value is told by the message.
    const absent = issue.code === 'invalid_type' && issue.input === undefined && /received undefined$/.test(issue.message);
    const where = target === 'pointer' ? `${base}${path.length ? '/' + path.join('/') : ''}` : path.join('.') || base;
    const code = issue.code === 'unrecognized_keys' ? 'unknown_attribute' : absent ? 'missing_attribute' : 'invalid_attribute';
    const detail =
      issue.code === 'unrecognized_keys'
        ? `Unknown member${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}.`
        : absent
          ? `${path.at(-1) ?? 'value'} is required.`
          : `${path.length ? path.join('.') + ': ' : ''}${issue.message}`;
    const status = target === 'parameter' ? 'invalid_query_parameter' : code;
    return new ApiError(status as 'invalid_attribute', detail, {
      source: target === 'pointer' ? { pointer: where } : { parameter: where },
    });
  });
  const [first, ...more] = errs;
  return new ApiError(first!.code, first!.message, { source: first!.source, more });
}

/** The one error handler: known errors keep their status; anything else is a 500 without internals. */
export function onError(err: Error, c: Context<AppEnv>) {
  if (err instanceof ApiError) {
    // A thrown 429 names its wait in meta.retry_after; clients read it from Retry-After.
    const wait = err.code === 'rate_limited' ? err.meta?.retry_after : undefined;
    return errorResponse(c, err, typeof wait === 'number' ? { 'retry-after': String(wait) } : undefined);
  }
  if (err instanceof HTTPException) {
    if (err.status === 400 && /malformed json/i.test(err.message)) {
      return errorResponse(c, new ApiError('malformed_json', 'The body is not valid JSON.'));
    }
    const byStatus: Record<number, ErrorCode> = {
      400: 'bad_request',
      401: 'unauthorized',
      404: 'not_found',
      405: 'method_not_allowed',
      415: 'unsupported_media_type',
    };
    const code = byStatus[err.status] ?? 'internal_error';
    const detail = err.status === 415 ? 'Send the body as application/json.' : err.message || 'Request failed.';
    return errorResponse(c, new ApiError(code, detail, err.status === 415 ? { source: { header: 'Content-Type' } } : {}));
  }
  if (isDatabaseUnavailable(err)) {
    console.error(`[${c.get('requestId')}] database unavailable: ${err.message}`);
    return errorResponse(c, new ApiError('service_unavailable', 'The service is temporarily unavailable; retry with exponential backoff.'), {
      'retry-after': '5',
    });
  }
  console.error(`[${c.get('requestId')}] unhandled error`, err);
  return errorResponse(c, new ApiError('internal_error', 'An unexpected error occurred. Retry later; quote the request id if it persists.'));
}
