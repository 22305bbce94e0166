import type { Hono } from 'hono';
import { ApiError, verifyProcessToken } from '@cairn/core';
import type { AppEnv } from '../env.ts';
import { bodyToken } from '../auth.ts';
import { withSql } from '../db.ts';
import { findResult } from '../results.ts';
import { processResponse, type ProcessPart } from '../formats.ts';

/**
 * `POST /process` with `data_access_token` (a data process token) in a JSON or form body: the
 * results the token names, as one JSON document, a zip of CSV files or one XLSX workbook. Every
 * result is looked up before the first byte is sent, so a missing one is a 404, not a cut download.
 */
export function processRoutes(app: Hono<AppEnv>) {
  app.post('/process', async (c) => {
    const token = await bodyToken(c);
    const claims = await verifyProcessToken(token, c.env.DATA_TOKEN_SECRET, { region: c.env.REGION });
    return withSql(c, async (db) => {
      const parts: ProcessPart[] = [];
      for (const item of claims.items) {
        const result = await findResult(db.sql, claims.org, item.key, c.env);
        if (!result) {
          throw new ApiError('not_found', `The result of report "${item.name}" is gone (results are kept for 24 hours); request the download again.`, {
            meta: { report_id: item.id },
          });
        }
        parts.push({ id: item.id, name: item.name, result });
      }
      return processResponse(db, parts, claims, db.close);
    });
  });
}
