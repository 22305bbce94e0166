import { ApiError, JSONAPI_MEDIA_TYPE, type Document, type Relationship, type ResourceObject } from '@cairn/core';
import type { Context } from 'hono';

export function resource(
  baseUrl: string,
  type: string,
  id: string,
  attributes: Record<string, unknown>,
  relationships?: Record<string, Relationship>,
): ResourceObject {
  return {
    type,
    id,
    attributes,
    ...(relationships && Object.keys(relationships).length ? { relationships } : {}),
    links: { self: `${baseUrl}/${type}/${id}` },
  };
}

export const toMany = (type: string, ids: readonly string[]): Relationship => ({
  data: ids.map((id) => ({ type, id })),
});
export const toOne = (type: string, id: string | null | undefined): Relationship => ({
  data: id ? { type, id } : null,
});

/** Sends a JSON:API document with the JSON:API media type. */
export function sendDocument(c: Context, doc: Document, status: 200 | 201 = 200): never {
  // Typed as never so OpenAPI route handlers accept it whatever response schema they declare.
  return c.body(JSON.stringify({ ...doc, jsonapi: { version: '1.0' } }), status, {
    'content-type': JSONAPI_MEDIA_TYPE,
  }) as never;
}

/** Parses `include=a,b` against the names the resource allows; an unknown name is a 400 naming it. */
export function parseInclude(c: Context, allowed: readonly string[]): Set<string> {
  const raw = c.req.query('include');
  const out = new Set<string>();
  if (!raw) return out;
  for (const name of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (!allowed.includes(name)) {
      throw new ApiError('invalid_include', `"${name}" cannot be included here; allowed: ${allowed.join(', ')}.`, {
        source: { parameter: 'include' },
      });
    }
    out.add(name);
  }
  return out;
}

const PAGE_DEFAULT = 50;
const PAGE_MAX = 200;

/** `page[size]` (default 50, at most 200) and `page[number]` (from 1). */
function parsePage(c: Context): { size: number; number: number } {
  const num = (name: string, min: number, max: number, dflt: number) => {
    const raw = c.req.query(name);
    if (raw === undefined) return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new ApiError('invalid_query_parameter', `${name} must be a whole number from ${min} to ${max}.`, {
        source: { parameter: name },
      });
    }
    return n;
  };
  return { size: num('page[size]', 1, PAGE_MAX, PAGE_DEFAULT), number: num('page[number]', 1, 1_000_000, 1) };
}

/** One `sort` field: its name and direction (`-name` is descending). */
interface ListSort {
  field: string;
  desc: boolean;
}

/** A list call's page with its search and order: `filter[name]` and `sort` (see parseListQuery). */
export interface ListQuery {
  size: number;
  number: number;
  /** `filter[name]`: a case-insensitive substring of the name. */
  name?: string;
  /** `sort`, in order; empty for the list's own order. */
  sort: ListSort[];
}

const NAME_FILTER_MAX = 255;

/**
 * A list call's query, the JSON:API way: `page[size]`/`page[number]` (parsePage), `filter[name]` (a
 * case-insensitive substring, 1–255 characters) and `sort` (comma-separated names of `sortable`, each
 * ascending or with `-` descending). A bad value is a 400 naming its parameter. The names are declared
 * in the route's query schema by `listQuery` (lib/openapi.ts) and applied in SQL by lib/list.ts.
 */
export function parseListQuery(c: Context, sortable: readonly string[]): ListQuery {
  const page = parsePage(c);
  const name = c.req.query('filter[name]');
  if (name !== undefined && (name.length === 0 || name.length > NAME_FILTER_MAX)) {
    throw new ApiError('invalid_query_parameter', `filter[name] must be 1 to ${NAME_FILTER_MAX} characters.`, {
      source: { parameter: 'filter[name]' },
    });
  }
  const raw = c.req.query('sort');
  const sort: ListSort[] = [];
  if (raw !== undefined) {
    const allowed = `sort takes a comma-separated list of ${sortable.join(', ')} (each with - in front for descending)`;
    for (const part of raw.split(',')) {
      const field = part.trim().replace(/^-/, '');
      if (!sortable.includes(field)) {
        throw new ApiError('invalid_query_parameter', `${part.trim() ? `"${part.trim()}" is not a sort field here` : 'sort has an empty field'}: ${allowed}.`, {
          source: { parameter: 'sort' },
        });
      }
      if (sort.some((s) => s.field === field)) {
        throw new ApiError('invalid_query_parameter', `sort names ${field} twice: ${allowed}.`, { source: { parameter: 'sort' } });
      }
      sort.push({ field, desc: part.trim().startsWith('-') });
    }
  }
  return { ...page, ...(name !== undefined ? { name } : {}), sort };
}

function pageLinks(c: Context, page: { size: number; number: number }, total: number) {
  const url = new URL(c.req.url);
  const at = (n: number) => {
    url.searchParams.set('page[number]', String(n));
    url.searchParams.set('page[size]', String(page.size));
    return url.toString();
  };
  const last = Math.max(1, Math.ceil(total / page.size));
  return {
    self: at(page.number),
    first: at(1),
    last: at(last),
    prev: page.number > 1 ? at(page.number - 1) : null,
    next: page.number < last ? at(page.number + 1) : null,
  };
}

/** Sends a page of resources with pagination links and `meta.total`. */
export function sendList(
  c: Context,
  page: { size: number; number: number },
  res: { data: ResourceObject[]; total: number; included?: ResourceObject[] },
  include?: Set<string>,
): never {
  return sendDocument(c, {
    data: res.data,
    ...(include?.size ? { included: res.included ?? [] } : {}),
    links: pageLinks(c, page, res.total),
    meta: { total: res.total, page: { size: page.size, number: page.number } },
  });
}

/** `(page.number - 1) * page.size` for OFFSET. */
export const offsetOf = (page: { size: number; number: number }) => (page.number - 1) * page.size;
