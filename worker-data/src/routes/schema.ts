import type { Hono } from 'hono';
import { ApiError, parseDataKey, verifyDataToken } from '@cairn/core';
import type { AppEnv } from '../env.ts';
import { bearerDataToken, keyFromPath } from '../auth.ts';
import { withSql } from '../db.ts';
import { findResult } from '../results.ts';
import { toReadableStream } from '@cairn/core/export/stream';

/**
 * `GET /schema/{dataKey}` with `Authorization: Data <schema token>`: the schema document the API
 * stored for a datasource (`GET /datasources/{id}/schema`).
 *
 * Storage contract (written by the API, read here): a `results` row with this `data_key` and the
 * organization, not expired, whose `result_chunks` (seq 0, 1, …; cut anywhere, even inside a UTF-8
 * character) concatenated are one JSON document
 * `{"schemas": [{"name", "tables": [{"name", "columns": [{"name", "db_type", "data_type"}], …}]}], …}`.
 * Other top-level members are passed through. The rows/fields columns of the result are not used.
 *
 * The whole document streams as stored. With a schema name — the token's `name` claim, or the
 * `name` query parameter when the token has none — only that schema is returned (404 when the
 * datasource has no schema of that name).
 */
export function schemaRoutes(app: Hono<AppEnv>) {
  app.get('/schema/*', async (c) => {
    const key = keyFromPath(c, 'schema');
    const claims = await verifyDataToken(bearerDataToken(c), c.env.DATA_TOKEN_SECRET, { region: c.env.REGION, kind: 'schema' });
    if (!parseDataKey(key) || claims.key !== key) {
      throw new ApiError('invalid_data_token', 'This token was issued for another data key.', { source: { parameter: 'dataKey' } });
    }
    const asked = c.req.query('name');
    if (claims.name !== undefined && asked !== undefined && asked !== claims.name) {
      throw new ApiError('invalid_query_parameter', `This token is for schema "${claims.name}" only.`, { source: { parameter: 'name' } });
    }
    const name = claims.name ?? asked;
    const headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'private, max-age=300' };
    return withSql(c, async (db) => {
      const stored = await findResult(db.sql, claims.org, key, c.env);
      if (!stored) throw new ApiError('not_found', 'No schema data under this data key; it is kept for 24 hours.');
      if (name === undefined) {
        return new Response(toReadableStream(db.chunks(stored), { onDone: db.close }), { headers });
      }
      const doc = await readDocument(db.chunks(stored));
      db.close();
      const schemas = Array.isArray(doc.schemas) ? doc.schemas : [];
      const one = schemas.find((s) => (s as { name?: unknown })?.name === name);
      if (!one) throw new ApiError('not_found', `The datasource has no schema named "${name}".`, { source: { parameter: 'name' } });
      return new Response(JSON.stringify({ ...doc, schemas: [one] }), { headers });
    });
  });
}

async function readDocument(chunks: AsyncIterable<Uint8Array>): Promise<{ schemas?: unknown[] } & Record<string, unknown>> {
  const dec = new TextDecoder();
  let text = '';
  for await (const chunk of chunks) text += dec.decode(chunk, { stream: true });
  text += dec.decode();
  try {
    const doc = JSON.parse(text);
    if (typeof doc === 'object' && doc !== null && !Array.isArray(doc)) return doc;
  } catch {
    /* reported below */
  }
  throw new Error('The stored schema document is not a JSON object.');
}
