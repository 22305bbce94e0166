import { ApiError, JSONAPI_MEDIA_TYPE } from '@cairn/core';
import type { Context } from 'hono';
import { z } from '@hono/zod-openapi';
import { fromZod } from './errors.ts';
import { parseJsonBody } from './body.ts';

/**
 * How a resource accepts JSON:API create/update bodies. One spec per resource drives validation
 * here and its request schema in the OpenAPI document (see `resourceRequestSchema`).
 *
 * - `attributes`: a zod object of every writable attribute (each optional; `required` says which a
 *   create must carry). Unknown attributes are refused (422 unknown_attribute).
 * - `readOnly`: attributes the resource shows but clients may not write (422 read_only_attribute).
 * - `createOnly`: writable on create, read-only afterwards (e.g. a report's width and height).
 * - `relationships`: name → target type, to-one or to-many, and whether a create needs it.
 */
interface RelationshipSpec {
  type: string;
  many: boolean;
  requiredOnCreate?: boolean;
  /** Refused on update (set once at creation). */
  createOnly?: boolean;
}

export interface ResourceBodySpec<A extends z.ZodRawShape> {
  type: string;
  attributes: z.ZodObject<A>;
  required?: readonly (keyof A & string)[];
  readOnly?: readonly string[];
  createOnly?: readonly (keyof A & string)[];
  relationships?: Record<string, RelationshipSpec>;
}

export interface ResourceBody<A extends z.ZodRawShape> {
  /** Only the attributes the client sent (so an update touches only those columns). */
  attributes: Partial<z.infer<z.ZodObject<A>>>;
  /** Linkage by relationship name: an id, a list of ids, or null (cleared). Only those sent. */
  relationships: Record<string, string | string[] | null>;
}

const linkage = z.object({ type: z.string().min(1), id: z.string().min(1).max(64) }).strict();

/** Requires the JSON:API media type on a create/update body (415 otherwise, also for media type parameters). */
function requireJsonApiMediaType(c: Context) {
  const raw = c.req.header('content-type') ?? '';
  const [type, ...params] = raw.split(';').map((s) => s.trim());
  const extra = params.filter((p) => p && !/^(ext|profile)=/i.test(p));
  if ((type ?? '').toLowerCase() !== JSONAPI_MEDIA_TYPE || extra.length) {
    // JSON:API 1.0 asks servers to refuse its media type with any parameter but ext and profile (charset
    // included): say so, and what to send instead.
    const why =
      (type ?? '').toLowerCase() === JSONAPI_MEDIA_TYPE
        ? `, without media type parameters: JSON:API refuses ${extra.map((p) => `"${p}"`).join(', ')} (its bodies are always UTF-8), so send the bare "${JSONAPI_MEDIA_TYPE}"`
        : raw
          ? `, not ${raw}`
          : '';
    throw new ApiError('unsupported_media_type', `Send the body as ${JSONAPI_MEDIA_TYPE}${why}.`, {
      source: { header: 'Content-Type' },
    });
  }
}

/**
 * Reads `{ data: { type, id?, attributes, relationships } }`, checking the media type, the type
 * (409 on a mismatch, as JSON:API asks), the id on updates, read-only and unknown attributes,
 * required attributes and relationships on create, and each attribute's schema (422 with a
 * `source.pointer` per problem, all problems reported together).
 */
export async function readResourceBody<A extends z.ZodRawShape>(
  c: Context,
  spec: ResourceBodySpec<A>,
  mode: 'create' | 'update',
  id?: string,
): Promise<ResourceBody<A>> {
  requireJsonApiMediaType(c);
  const text = await c.req.text();
  const doc = parseJsonBody(text);
  const data = (doc as { data?: unknown } | null)?.data;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc) || !data || typeof data !== 'object' || Array.isArray(data)) {
    throw new ApiError('invalid_attribute', 'The body must be a JSON:API document: {"data": {"type": …, "attributes": {…}}}.', {
      source: { pointer: '/data' },
    });
  }
  const d = data as Record<string, unknown>;
  const problems: ApiError[] = [];
  for (const k of Object.keys(d)) {
    if (!['type', 'id', 'attributes', 'relationships', 'meta', 'links'].includes(k)) {
      problems.push(new ApiError('unknown_attribute', `Unknown member "${k}" in data.`, { source: { pointer: `/data/${k}` } }));
    }
  }
  if (d.type !== spec.type) {
    throw new ApiError('conflict', `data.type must be "${spec.type}"${typeof d.type === 'string' ? `, not "${d.type}"` : ''}.`, {
      source: { pointer: '/data/type' },
    });
  }
  if (mode === 'update' && d.id === undefined) {
    // JSON:API: an update's resource object must carry its id (400 when absent, 409 when it differs).
    throw new ApiError('bad_request', `data.id is required in an update: send "id": "${id}" (the id in the URL).`, {
      source: { pointer: '/data/id' },
    });
  }
  if (mode === 'update' && d.id !== id) {
    throw new ApiError('conflict', `data.id "${String(d.id)}" does not match the id in the URL.`, { source: { pointer: '/data/id' } });
  }
  if (mode === 'create' && d.id !== undefined) {
    problems.push(new ApiError('read_only_attribute', 'Cairn assigns ids; leave data.id out when creating.', { source: { pointer: '/data/id' } }));
  }

  // Attributes.
  const attrs = d.attributes ?? {};
  if (typeof attrs !== 'object' || attrs === null || Array.isArray(attrs)) {
    throw new ApiError('invalid_attribute', 'data.attributes must be an object.', { source: { pointer: '/data/attributes' } });
  }
  const writable = new Set(Object.keys(spec.attributes.shape));
  const given = attrs as Record<string, unknown>;
  const accepted: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(given)) {
    const pointer = `/data/attributes/${k}`;
    if (spec.readOnly?.includes(k) || (mode === 'update' && spec.createOnly?.includes(k as never))) {
      const why = mode === 'update' && spec.createOnly?.includes(k as never) ? 'can only be set when the resource is created' : 'is read-only';
      problems.push(new ApiError('read_only_attribute', `${k} ${why}.`, { source: { pointer } }));
    } else if (!writable.has(k)) {
      problems.push(new ApiError('unknown_attribute', `Unknown attribute "${k}".`, { source: { pointer } }));
    } else {
      accepted[k] = v;
    }
  }
  if (mode === 'create') {
    for (const k of spec.required ?? []) {
      if (given[k] === undefined || given[k] === null) {
        problems.push(new ApiError('missing_attribute', `${k} is required.`, { source: { pointer: `/data/attributes/${k}` } }));
      }
    }
  }
  const parsed = spec.attributes.partial().safeParse(accepted);
  if (!parsed.success) problems.push(fromZod(parsed.error, '/data/attributes'));
  const attributes = parsed.success ? Object.fromEntries(Object.entries(parsed.data).filter(([k]) => k in accepted)) : {};

  // Relationships.
  const relationships: Record<string, string | string[] | null> = {};
  const rels = d.relationships ?? {};
  const relSpecs = spec.relationships ?? {};
  if (typeof rels !== 'object' || rels === null || Array.isArray(rels)) {
    problems.push(new ApiError('invalid_relationship', 'data.relationships must be an object.', { source: { pointer: '/data/relationships' } }));
  } else {
    for (const [name, value] of Object.entries(rels as Record<string, unknown>)) {
      const pointer = `/data/relationships/${name}`;
      const rs = relSpecs[name];
      if (!rs) {
        problems.push(new ApiError('unknown_attribute', `Unknown relationship "${name}".`, { source: { pointer } }));
        continue;
      }
      if (mode === 'update' && rs.createOnly) {
        problems.push(new ApiError('read_only_attribute', `The ${name} relationship can only be set on create.`, { source: { pointer } }));
        continue;
      }
      const v = (value as { data?: unknown } | null)?.data;
      if (!value || typeof value !== 'object' || !('data' in (value as object))) {
        problems.push(new ApiError('invalid_relationship', `${name} must be {"data": …}.`, { source: { pointer } }));
      } else if (rs.many) {
        const arr = z.array(linkage).max(1000).safeParse(v);
        if (!arr.success)
          problems.push(new ApiError('invalid_relationship', `${name}.data must be a list of {type, id}.`, { source: { pointer: `${pointer}/data` } }));
        else {
          const bad = arr.data.findIndex((x) => x.type !== rs.type);
          if (bad >= 0)
            problems.push(
              new ApiError('invalid_relationship', `${name} holds ${rs.type}, not ${arr.data[bad]!.type}.`, {
                source: { pointer: `${pointer}/data/${bad}/type` },
              }),
            );
          else relationships[name] = [...new Set(arr.data.map((x) => x.id))];
        }
      } else if (v === null) {
        if (rs.requiredOnCreate) problems.push(new ApiError('invalid_relationship', `${name} cannot be empty.`, { source: { pointer: `${pointer}/data` } }));
        else relationships[name] = null;
      } else {
        const one = linkage.safeParse(v);
        if (!one.success)
          problems.push(new ApiError('invalid_relationship', `${name}.data must be {type, id} or null.`, { source: { pointer: `${pointer}/data` } }));
        else if (one.data.type !== rs.type)
          problems.push(
            new ApiError('invalid_relationship', `${name} must be a ${rs.type} resource, not ${one.data.type}.`, {
              source: { pointer: `${pointer}/data/type` },
            }),
          );
        else relationships[name] = one.data.id;
      }
    }
  }
  if (mode === 'create') {
    for (const [name, rs] of Object.entries(relSpecs)) {
      if (rs.requiredOnCreate && relationships[name] === undefined && !problems.some((p) => p.source?.pointer?.startsWith(`/data/relationships/${name}`))) {
        problems.push(new ApiError('invalid_relationship', `The ${name} relationship is required.`, { source: { pointer: `/data/relationships/${name}` } }));
      }
    }
  }
  if (problems.length) {
    const flat = problems.flatMap((p) => [p, ...p.more]);
    const [first, ...more] = flat;
    throw new ApiError(first!.code, first!.message, { source: first!.source, more: more.map((m) => new ApiError(m.code, m.message, { source: m.source })) });
  }
  return { attributes: attributes as ResourceBody<A>['attributes'], relationships };
}

/** The OpenAPI request body of a create or update, generated from the same spec. */
export function resourceRequestSchema<A extends z.ZodRawShape>(spec: ResourceBodySpec<A>, mode: 'create' | 'update') {
  const required = new Set(mode === 'create' ? (spec.required ?? []) : []);
  const shape: Record<string, z.ZodType> = {};
  for (const [k, s] of Object.entries(spec.attributes.shape)) {
    if (mode === 'update' && spec.createOnly?.includes(k as never)) continue;
    shape[k] = required.has(k as never) ? (s as z.ZodType) : (s as z.ZodType).optional();
  }
  const relShape: Record<string, z.ZodType> = {};
  for (const [name, rs] of Object.entries(spec.relationships ?? {})) {
    if (mode === 'update' && rs.createOnly) continue;
    const ident = z.object({ type: z.literal(rs.type), id: z.string() });
    const rel = z.object({ data: rs.many ? z.array(ident) : ident.nullable() });
    relShape[name] = mode === 'create' && rs.requiredOnCreate ? rel : rel.optional();
  }
  const hasRequiredRel = Object.values(spec.relationships ?? {}).some((r) => r.requiredOnCreate) && mode === 'create';
  const relObj = z.object(relShape);
  return z.object({
    data: z.object({
      type: z.literal(spec.type),
      ...(mode === 'update' ? { id: z.string() } : {}),
      attributes: z.object(shape).strict().optional(),
      relationships: hasRequiredRel ? relObj : relObj.optional(),
    }),
  });
}
