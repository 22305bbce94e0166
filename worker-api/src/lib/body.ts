import { ApiError, JSONAPI_MEDIA_TYPE } from '@cairn/core';
import type { Context } from 'hono';
import type { z } from 'zod';
import { fromZod } from './errors.ts';

/**
 * Reads a JSON body of the expected media type and validates it. Action calls take
 * `application/json`, create/update calls `application/vnd.api+json`. An empty body is `{}`.
 * Wrong media type → 415; unparsable JSON → 400; schema violations → 422 with pointers.
 */
export async function readBody<S extends z.ZodType>(c: Context, schema: S, kind: 'action' | 'jsonapi'): Promise<z.infer<S>> {
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
    parsed = parseJsonBody(text);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) throw fromZod(result.error, '');
  return result.data;
}

/**
 * Parses a request body's JSON (400 malformed_json) and refuses text that PostgreSQL cannot store: U+0000
 * (not in text nor jsonb) and unpaired surrogates (a `\uD800` escape alone: jsonb refuses them), in a string value
 * or a member name, with a 422 and a pointer per place (at most 20). No attribute of Cairn's needs either.
 * Both body readers (readBody here and resource-body.ts) parse through here, so neither reaches a service.
 */
export function parseJsonBody(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ApiError('malformed_json', `The body is not valid JSON: ${(e as Error).message}`);
  }
  // Both can only arrive as \u escapes: the decoded body text holds neither raw.
  if (!/\\u(0000|d[89a-f])/i.test(text)) return parsed;
  const found = badTextPointers(parsed);
  if (found.length) {
    const errs = found.map(({ pointer, why }) => new ApiError('invalid_attribute', why, { source: { pointer } }));
    const [first, ...more] = errs;
    throw new ApiError(first!.code, first!.message, { source: first!.source, more });
  }
  return parsed;
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textProblem(v: string): string | null {
  if (v.includes('\u0000')) return 'Text may not contain the NUL character (U+0000).';
  if (LONE_SURROGATE.test(v)) return 'Text must be valid Unicode: it holds an unpaired surrogate (U+D800–U+DFFF).';
  return null;
}

/** JSON pointers of the strings and member names that cannot be stored (depth-first, iterative, at most `limit`). */
function badTextPointers(value: unknown, limit = 20): { pointer: string; why: string }[] {
  const out: { pointer: string; why: string }[] = [];
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length && out.length < limit) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      const why = textProblem(v);
      if (why) out.push({ pointer: at, why });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}/${i}`]);
    } else if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        const where = `${at}/${escapePointer(k)}`;
        const why = textProblem(k);
        if (why) out.push({ pointer: where, why });
        else stack.push([child, where]);
      }
    }
  }
  return out;
}
