import { ApiError, JSONAPI_MEDIA_TYPE } from '@cairn/core';
import type { Context } from 'hono';
import type { z } from 'zod';
import { fromZod } from './errors.ts';

/**
 * Reads a JSON body of the expected media type and validates it. Action calls take
 * `application/json`, create/update calls `application/vnd.api+json`. An empty body is `{}`.
 * Wrong media type → 415; unparsable JSON → 400; schema violations → 422 with pointers.
 */
export async function readBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  kind: 'action' | 'jsonapi',
): Promise<z.infer<S>> {
  const text = await c.req.text();
  let parsed: unknown = {};
  if (text.trim() !== '') {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const accepted = kind === 'action' ? ['application/json', JSONAPI_MEDIA_TYPE] : [JSONAPI_MEDIA_TYPE, 'application/json'];
    if (!accepted.includes(type)) {
      throw new ApiError('unsupported_media_type', `Send the body as ${accepted[0]}${type ? `, not ${type}` : ''}.`, {
        source: { header: 'Content-Type' },
      });
    }
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new ApiError('malformed_json', `The body is not valid JSON: ${(e as Error).message}`);
    }
  }
  const result = schema.safeParse(parsed);
  if (!result.success) throw fromZod(result.error, '');
  return result.data;
}
