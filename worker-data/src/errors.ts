import { ApiError, errorDocument, JSONAPI_MEDIA_TYPE } from '@cairn/core';
import type { Context } from 'hono';
import type { AppEnv } from './env.ts';

export function errorResponse(c: Context<AppEnv>, err: ApiError) {
  return c.body(JSON.stringify(errorDocument(err.toObjects(), c.get('requestId'))), err.status as 400, {
    'content-type': JSONAPI_MEDIA_TYPE,
  });
}

export function onError(err: Error, c: Context<AppEnv>) {
  if (err instanceof ApiError) return errorResponse(c, err);
  console.error(`[${c.get('requestId')}] unhandled error`, err);
  return errorResponse(c, new ApiError('internal_error', 'An unexpected error occurred. Retry later.'));
}
