import { z } from '@hono/zod-openapi';
import { ERROR_CODES } from '@cairn/core';

/** Shared OpenAPI pieces: every route documents its errors and JSON:API bodies the same way. */
export const idParam = z.object({
  id: z.string().min(1).max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'dsh_4f0aB2cD9eFgH1iJkL3m' }),
});

export const pageQuery = z.object({
  'page[size]': z.string().optional().openapi({ description: 'Items per page, 1–200 (default 50).' }),
  'page[number]': z.string().optional().openapi({ description: 'Page number, from 1.' }),
});

export const includeQuery = (allowed: readonly string[]) =>
  z.object({
    include: z.string().optional().openapi({ description: `Comma-separated: ${allowed.join(', ')}.` }),
  });

const resourceObject = z.object({
  type: z.string(),
  id: z.string(),
  attributes: z.record(z.string(), z.unknown()),
  relationships: z.record(z.string(), z.unknown()).optional(),
  links: z.object({ self: z.string() }).optional(),
});

export const documentSchema = (description: string) => ({
  description,
  content: {
    'application/vnd.api+json': {
      schema: z.object({
        data: z.union([resourceObject, z.array(resourceObject)]),
        included: z.array(resourceObject).optional(),
        links: z.record(z.string(), z.string().nullable()).optional(),
        meta: z.record(z.string(), z.unknown()).optional(),
      }),
    },
  },
});

export const errorDocument = z
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
  403: 'The key lacks the permission, or access to the resource',
  404: 'No such resource in this organization',
  409: 'Conflict with the current state',
  415: 'Unsupported media type',
  422: 'Invalid input, plan limit, or the resource\'s current state',
  429: 'Rate limit exceeded; see Retry-After',
};

export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((s) => [s, { description: ERROR_TEXT[s] ?? 'Error', content: { 'application/vnd.api+json': { schema: errorDocument } } }]),
  );
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
      ...(relationships.length
        ? { relationships: z.object(Object.fromEntries(relationships.map((r) => [r, relationshipDoc.optional()]))) }
        : {}),
      links: z.object({ self: z.string() }),
    })
    .openapi(name);
}

/** 200/201 answer holding one resource (plus `included`). */
export const oneDocument = (description: string, resourceSchema: z.ZodType) => ({
  description,
  content: { [JSONAPI]: { schema: z.object({ data: resourceSchema, included: z.array(resourceObject).optional() }) } },
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
