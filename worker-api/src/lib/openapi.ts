import { z } from '@hono/zod-openapi';
import { ERROR_CODES, ID_PREFIXES, type IdKind } from '@cairn/core';

/** Shared OpenAPI pieces: every route documents its errors and JSON:API bodies the same way. */
export const idParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'dsh_4f0aB2cD9eFgH1iJkL3m' }),
});

const pageQuery = z.object({
  'page[size]': z.string().optional().openapi({ description: 'Items per page, 1–200 (default 50).' }),
  'page[number]': z.string().optional().openapi({ description: 'Page number, from 1.' }),
});

/**
 * A list call's query parameters: the page, `filter[name]` and `sort` over the given fields (parsed by
 * parseListQuery in lib/jsonapi.ts), and `include` when the list offers related resources.
 */
export const listQuery = (sortable: readonly string[], order: string, includes?: readonly string[]) =>
  pageQuery.extend({
    'filter[name]': z.string().min(1).max(255).optional().openapi({
      description: 'Only resources whose name holds this text (case-insensitive substring), 1–255 characters.',
      example: 'sales',
    }),
    sort: z
      .string()
      .optional()
      .openapi({
        description: `Comma-separated sort fields, each ascending or with \`-\` in front for descending: ${sortable.join(', ')}. Without it: ${order}.`,
        example: `-${sortable.includes('updated_at') ? 'updated_at' : sortable[0]}`,
      }),
    ...(includes ? includeQuery(includes).shape : {}),
  });

export const includeQuery = (allowed: readonly string[]) =>
  z.object({
    include: z
      .string()
      .optional()
      .openapi({ description: `Comma-separated: ${allowed.join(', ')}.` }),
  });

const resourceObject = z.object({
  type: z.string(),
  id: z.string(),
  attributes: z.record(z.string(), z.unknown()),
  relationships: z.record(z.string(), z.unknown()).optional(),
  links: z.object({ self: z.string() }).optional(),
});

const errorDocument = z
  .object({
    errors: z.array(
      z.object({
        status: z.string(),
        code: z.enum(Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]]),
        title: z.string(),
        detail: z.string(),
        source: z.object({ pointer: z.string().optional(), parameter: z.string().optional(), header: z.string().optional() }).optional(),
        meta: z.record(z.string(), z.unknown()).optional(),
      }),
    ),
  })
  .openapi('Errors');

const ERROR_TEXT: Record<number, string> = {
  400: 'Malformed request: bad JSON, unknown include or query parameter',
  401: 'No, malformed, unknown or disabled API key',
  403: 'The key lacks the permission, or access to the resource; or the organization is in the other region (wrong_region)',
  404: 'No such resource in this organization',
  409: 'Conflict with the current state',
  415: 'Unsupported media type',
  422: "Invalid input, plan limit, or the resource's current state",
  429: 'Rate limit exceeded; see Retry-After',
};

/** What the statuses mean on the calls that take no API key (sharing links, print views). */
const PUBLIC_ERROR_TEXT: Record<number, string> = {
  ...ERROR_TEXT,
  401: "The link's password grant, or the print view's token, is missing, wrong or expired",
  403: 'The link does not allow this call (its address list, signature or a switch), or it is in the other region (wrong_region)',
  404: 'No such link, print view or report, or it has expired',
  429: 'Too many attempts from your address; see Retry-After',
};

function errorAnswers(texts: Record<number, string>, statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, { description: texts[s] ?? 'Error', content: { 'application/vnd.api+json': { schema: errorDocument } } }]));
}

export function errorResponses(...statuses: number[]) {
  return errorAnswers(ERROR_TEXT, statuses);
}

/** The error answers of a call that takes no API key (`security: []`). */
export function publicErrorResponses(...statuses: number[]) {
  return errorAnswers(PUBLIC_ERROR_TEXT, statuses);
}

// ---- Typed resource documents, request bodies and route registration ----

const JSONAPI = 'application/vnd.api+json';
const identifier = z.object({ type: z.string(), id: z.string() });
const relationshipDoc = z.object({ data: z.union([identifier, z.array(identifier), z.null()]) });

/**
 * A named resource object schema for the OpenAPI document (components/schemas/<Name>), built from
 * the resource's response attributes.
 */
export function resourceObjectSchema(name: string, type: string, attributes: z.ZodObject<z.ZodRawShape>, relationships: readonly string[] = []) {
  return z
    .object({
      type: z.literal(type),
      id: z.string(),
      attributes,
      ...(relationships.length ? { relationships: z.object(Object.fromEntries(relationships.map((r) => [r, relationshipDoc.optional()]))) } : {}),
      links: z.object({ self: z.string() }),
    })
    .openapi(name);
}

/** 200/201 answer holding one resource (plus `included`, and `meta` when the call documents one). */
export const oneDocument = (description: string, resourceSchema: z.ZodType, meta?: z.ZodType) => ({
  description,
  content: {
    [JSONAPI]: { schema: z.object({ data: resourceSchema, included: z.array(resourceObject).optional(), ...(meta ? { meta } : {}) }) },
  },
});

/** 200 answer holding a page of resources, with pagination links and the total. */
export const listDocument = (description: string, resourceSchema: z.ZodType) => ({
  description,
  content: {
    [JSONAPI]: {
      schema: z.object({
        data: z.array(resourceSchema),
        included: z.array(resourceObject).optional(),
        links: z.object({ self: z.string(), first: z.string(), last: z.string(), prev: z.string().nullable(), next: z.string().nullable() }),
        meta: z.object({ total: z.number().int(), page: z.object({ size: z.number().int(), number: z.number().int() }) }),
      }),
    },
  },
});

/** A JSON:API request body (create/update). */
export const jsonApiBody = (schema: z.ZodType, description?: string) => ({
  required: true,
  ...(description ? { description } : {}),
  content: { [JSONAPI]: { schema } },
});

/** A plain JSON request body (actions). */
export const actionBody = (schema: z.ZodType, required = false) => ({
  required,
  content: { 'application/json': { schema } },
});

export const noContent = (description = 'Done; no body') => ({ description });

// ---- The document as served ----

type Json = { [key: string]: unknown };
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const SCHEMA_REF = '#/components/schemas/';

/** Whether a schema (or a component it refers to) has a member with a `default`. */
function holdsDefault(node: unknown, schemas: Json, seen: Set<string>): boolean {
  if (Array.isArray(node)) return node.some((n) => holdsDefault(n, schemas, seen));
  if (!isObject(node)) return false;
  if (typeof node.$ref === 'string' && node.$ref.startsWith(SCHEMA_REF)) {
    const name = node.$ref.slice(SCHEMA_REF.length);
    if (seen.has(name)) return false;
    seen.add(name);
    return holdsDefault(schemas[name], schemas, seen);
  }
  if (isObject(node.properties) && Object.values(node.properties).some((p) => isObject(p) && 'default' in p)) return true;
  return Object.values(node).some((v) => holdsDefault(v, schemas, seen));
}

/**
 * A request body's schema with every `$ref` to a component that holds a default replaced by the
 * component itself, and no property that has a `default` listed as `required`: the server fills such a
 * member in, so a client may leave it out. Inlining matters because type generators (openapi-typescript
 * with its default settings) read a defaulted property of a *component* as always present, which is
 * true of answers but not of requests. Components without defaults stay references; a component that
 * refers to itself stays a reference below its first level.
 */
function requestSchema(node: unknown, schemas: Json, seen: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => requestSchema(n, schemas, seen));
  if (!isObject(node)) return node;
  if (typeof node.$ref === 'string' && node.$ref.startsWith(SCHEMA_REF)) {
    const name = node.$ref.slice(SCHEMA_REF.length);
    const target = schemas[name];
    if (!seen.has(name) && isObject(target) && holdsDefault(target, schemas, new Set([name]))) {
      const { $ref: _ref, ...rest } = node;
      return { ...(requestSchema(target, schemas, new Set([...seen, name])) as Json), ...rest };
    }
    return node;
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = requestSchema(v, schemas, seen);
  if (isObject(out.properties) && Array.isArray(out.required)) {
    const props = out.properties;
    const required = out.required.filter((n) => !(isObject(props[n as string]) && 'default' in (props[n as string] as Json)));
    if (required.length) out.required = required;
    else delete out.required;
  }
  return out;
}

/**
 * `rep_4f0aB2cD9eFgH1iJkL3m` for `/reports/{id}`: the id kind is the collection before `{id}` in the
 * singular, else the path's first collection (`/users/invite/{id}` is a user id).
 */
function exampleIdFor(path: string): string | undefined {
  const parts = path.split('/');
  for (const collection of [parts[parts.indexOf('{id}') - 1], parts[1]]) {
    const prefix = ID_PREFIXES[(collection ?? '').replace(/s$/, '') as IdKind];
    if (prefix) return `${prefix}_4f0aB2cD9eFgH1iJkL3m`;
  }
  return undefined;
}

/**
 * The OpenAPI document as `GET /openapi.json` serves it: request bodies inline their schemas with
 * defaulted members optional (see requestSchema), and each `{id}` path parameter's example is an id
 * of the path's resource kind (`rep_…` under /reports, `exe_…` under /executions).
 */
export function servedDocument<T extends object>(document: T): T {
  const doc = structuredClone(document) as unknown as Json;
  const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    for (const op of Object.values(item)) {
      if (!isObject(op)) continue;
      const content = isObject(op.requestBody) && isObject(op.requestBody.content) ? op.requestBody.content : {};
      for (const media of Object.values(content)) {
        if (isObject(media) && media.schema) media.schema = requestSchema(media.schema, schemas, new Set());
      }
      const example = exampleIdFor(path);
      for (const p of Array.isArray(op.parameters) ? op.parameters : []) {
        if (!example || !isObject(p) || p.in !== 'path' || p.name !== 'id' || !isObject(p.schema)) continue;
        if (typeof p.schema.example === 'string' && p.schema.example.startsWith('dsh_')) p.schema.example = example;
      }
    }
  }
  return doc as unknown as T;
}
