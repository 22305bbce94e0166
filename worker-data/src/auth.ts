import { ApiError } from '@cairn/core';
import type { Context } from 'hono';
import type { AppEnv } from './env.ts';

/** The token of `Authorization: Data <token>` (GET calls). */
export function bearerDataToken(c: Context<AppEnv>): string {
  const header = c.req.header('authorization') ?? '';
  const m = /^Data\s+(\S+)$/i.exec(header.trim());
  if (!m) {
    throw new ApiError('unauthorized', 'Send the data access token as "Authorization: Data <token>".', {
      source: { header: 'Authorization' },
    });
  }
  return m[1]!;
}

/** The key after `/{prefix}/` in the path: it contains slashes and is sent as is, not URL-encoded. */
export function keyFromPath(c: Context<AppEnv>, prefix: string): string {
  const raw = new URL(c.req.url).pathname.slice(prefix.length + 2);
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError('bad_request', 'The data key in the path is not valid.', { source: { parameter: 'dataKey' } });
  }
}

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

/**
 * `data_access_token` from the body of a POST: JSON (`application/json`), or a form, so that a
 * browser can download a file with a plain form submission.
 */
export async function bodyToken(c: Context<AppEnv>): Promise<string> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  let value: unknown;
  if (FORM_TYPES.includes(type)) {
    let form: Record<string, unknown>;
    try {
      form = await c.req.parseBody();
    } catch {
      // A multipart body without its boundary, cut short or otherwise broken: the caller's fault.
      throw new ApiError('bad_request', `The body is not a valid ${type} form.`, { source: { header: 'Content-Type' } });
    }
    value = form.data_access_token;
  } else if (type === 'application/json' || type === '') {
    const text = await c.req.text();
    if (text.trim() === '') value = undefined;
    else {
      if (type === '') {
        throw new ApiError('unsupported_media_type', 'Send the body as application/json or as a form.', { source: { header: 'Content-Type' } });
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (e) {
        throw new ApiError('malformed_json', `The body is not valid JSON: ${(e as Error).message}`);
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new ApiError('bad_request', 'The body must be a JSON object: {"data_access_token": "…"}.');
      }
      const unknown = Object.keys(body).filter((k) => k !== 'data_access_token');
      if (unknown.length) {
        throw new ApiError('unknown_attribute', `Unknown member "${unknown[0]}"; the body takes only data_access_token.`, {
          source: { pointer: `/${unknown[0]}` },
        });
      }
      value = (body as { data_access_token?: unknown }).data_access_token;
    }
  } else {
    throw new ApiError('unsupported_media_type', `Send the body as application/json or as a form, not ${type}.`, {
      source: { header: 'Content-Type' },
    });
  }
  if (value === undefined || value === '') {
    throw new ApiError('missing_attribute', 'data_access_token is required: the data process token of POST /dashboards/{id}/data.', {
      source: { pointer: '/data_access_token' },
    });
  }
  if (typeof value !== 'string') {
    throw new ApiError('invalid_attribute', 'data_access_token must be a string.', { source: { pointer: '/data_access_token' } });
  }
  return value;
}
