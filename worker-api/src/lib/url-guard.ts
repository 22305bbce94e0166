import { ApiError } from '@cairn/core';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errorResponse } from './errors.ts';

/**
 * U+0000 never names anything: a path holding `%00` (an id, a token) is a 404 and a query parameter
 * holding it (name or value) a 400 naming the parameter, before any route or database sees them
 * (PostgreSQL refuses NUL in text, which made such ids a 500). Runs first in the app factory.
 */
export const refuseNulInUrl: MiddlewareHandler<AppEnv> = async (c, next) => {
  const url = new URL(c.req.url);
  if (/%00/.test(url.pathname)) {
    return errorResponse(c, new ApiError('not_found', 'No resource has an id holding the NUL character (%00).'));
  }
  if (url.search.includes('%00')) {
    for (const [name, value] of url.searchParams) {
      if (name.includes('\u0000') || value.includes('\u0000')) {
        const shown = name.replace(/\u0000/g, '%00');
        return errorResponse(
          c,
          new ApiError('invalid_query_parameter', `The query parameter "${shown}" may not contain the NUL character (%00).`, {
            source: { parameter: shown },
          }),
        );
      }
    }
  }
  await next();
};
