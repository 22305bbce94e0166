import type { Hono } from 'hono';
import { ApiError, parseDataKey, verifyDataToken } from '@cairn/core';
import type { AppEnv } from '../env.ts';
import { bearerDataToken, keyFromPath } from '../auth.ts';
import { withSql } from '../db.ts';
import { findResult } from '../results.ts';
import { resultResponse } from '../formats.ts';
import { parsePage } from '../paging.ts';

/**
 * `GET /data/{dataKey}` with `Authorization: Data <token>`: one stored result, as JSON or, when the
 * token was issued for a download, as CSV or XLSX. The key has slashes and is not URL-encoded.
 * `?offset=&limit=` (JSON only) answer one page of rows, reading only the chunks that hold it.
 */
export function dataRoutes(app: Hono<AppEnv>) {
  app.get('/data/*', async (c) => {
    const key = keyFromPath(c, 'data');
    const claims = await verifyDataToken(bearerDataToken(c), c.env.DATA_TOKEN_SECRET, { region: c.env.REGION, kind: 'data' });
    if (!parseDataKey(key) || claims.key !== key) {
      throw new ApiError('invalid_data_token', 'This token was issued for another data key.', { source: { parameter: 'dataKey' } });
    }
    const page = parsePage((name) => c.req.query(name), claims.format);
    return withSql(c, async (db) => {
      const result = await findResult(db.sql, claims.org, key, c.env);
      if (!result) throw new ApiError('not_found', 'No result under this data key; results are kept for 24 hours.');
      return resultResponse(db, result, claims, db.close, page);
    });
  });
}
