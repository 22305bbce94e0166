import { ApiError, errorDocument, isDatabaseUnavailable, JSONAPI_MEDIA_TYPE } from '@cairn/core';
import type { Context } from 'hono';
import type { AppEnv } from './env.ts';

export function errorResponse(c: Context<AppEnv>, err: ApiError) {
  // A 429 names its wait in meta.retry_after; clients read it from Retry-After.
  const wait = err.code === 'rate_limited' ? err.meta?.retry_after : undefined;
  return c.body(JSON.stringify(errorDocument(err.toObjects(), c.get('requestId'))), err.status as 400, {
    'content-type': JSONAPI_MEDIA_TYPE,
    ...(typeof wait === 'number' ? { 'retry-after': String(wait) } : {}),
  });
}

export function onError(err: Error, c: Context<AppEnv>) {
  if (err instanceof ApiError) return errorResponse(c, err);
  if (isDatabaseUnavailable(err)) {
    console.error(`[${c.get('requestId')}] database unavailable: ${err.message}`);
    const res = errorResponse(c, new ApiError('service_unavailable', 'The data server is temporarily unavailable; retry with exponential backoff.'));
    res.headers.set('retry-after', '5');
    return res;
  }
  console.error(`[${c.get('requestId')}] unhandled error`, err);
  return errorResponse(c, new ApiError('internal_error', 'An unexpected error occurred. Retry later.'));
}
