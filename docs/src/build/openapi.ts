/**
 * The API reference's operations, generated at docs build time from the API's own OpenAPI document
 * (worker-api's `GET /openapi.json`, built from the zod schemas its routes validate with).
 *
 * A page asks for it with the line `{/* openapi:operations *\/}`; the build replaces that line with
 * MDX: an h2 per tag, an h3 per operation (method and path, permission, description, parameters,
 * request body, responses with their error codes, a curl example), then the shared schemas. Being
 * part of the page source, the generated headings get ids, table-of-contents entries and search
 * sections like any hand-written heading.
 *
 * Escaping: free text goes through `mdText` (MDX-significant characters backslash-escaped outside
 * code spans); text inside JSX goes in as a JS string literal (`{"…"}`).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ERROR_CODES, PERMISSION_LABELS, type ErrorCode } from '@cairn/core';
import { slugify } from '../slugger.ts';

export const OPENAPI_MARKER = '{/* openapi:operations */}';

const run = promisify(execFile);

// ---- the parts of OpenAPI 3.1 read here ----

export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: boolean | Schema;
  description?: string;
  example?: unknown;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: Schema;
}

export interface MediaType {
  schema?: Schema;
}

export interface Operation {
  tags?: string[];
  summary?: string;
  description?: string;
  'x-permissions'?: string[];
  /** `[]`: the call takes no API key (public). */
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content?: Record<string, MediaType> };
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
}

export interface OpenApiDocument {
  openapi: string;
  info?: { title?: string; version?: string };
  paths: Record<string, Partial<Record<HttpMethod, Operation>>>;
  components?: { schemas?: Record<string, Schema> };
}

export const HTTP_METHODS = ['get', 'put', 'post', 'patch', 'delete', 'options', 'head'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface OperationRef {
  method: HttpMethod;
  path: string;
  operation: Operation;
}

// ---- loading ----

/**
 * Builds the document in Node from worker-api's app factory (in a child process, see openapi-dump.ts).
 * `/openapi.json` is registered before the database middleware, so no database is needed.
 */
export async function loadApiDocument(): Promise<OpenApiDocument> {
  const script = fileURLToPath(new URL('./openapi-dump.ts', import.meta.url));
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script], {
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  }).catch((err: { stderr?: string; message: string }) => {
    throw new Error((err.stderr?.trim() || err.message).split('\n').slice(-8).join(' | '));
  });
  return checkDocument(JSON.parse(stdout));
}

export function checkDocument(value: unknown): OpenApiDocument {
  const doc = value as Partial<OpenApiDocument> | null;
  if (!doc || typeof doc !== 'object' || typeof doc.openapi !== 'string' || !doc.paths || typeof doc.paths !== 'object') {
    throw new Error('not an OpenAPI document (expected "openapi" and "paths")');
  }
  return doc as OpenApiDocument;
}

/** Every operation in document order. */
export function operationsOf(doc: OpenApiDocument): OperationRef[] {
  const ops: OperationRef[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item?.[method];
      if (operation) ops.push({ method, path, operation });
    }
  }
  return ops;
}

// ---- escaping ----

const MD_SPECIAL = /[\\`*_{}[\]<>()#+!|~&]/g;

/** Plain text for markdown/MDX: every significant character escaped. */
export function mdEscape(text: string): string {
  return text.replace(MD_SPECIAL, '\\$&').replace(/\s*\n\s*/g, ' ').replace(/^([-=])/, '\\$1').replace(/^(\d+)([.)])/, '$1\\$2');
}

/** Prose that may hold `code spans`: the spans kept, the rest escaped; `|` escaped for table cells. */
export function mdText(text: string, inTable = false): string {
  const out: string[] = [];
  const span = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g;
  let at = 0;
  for (const m of text.matchAll(span)) {
    out.push(mdEscape(text.slice(at, m.index)));
    out.push(code(m[2]!, inTable));
    at = m.index + m[0].length;
  }
  out.push(mdEscape(text.slice(at)));
  return out.join('');
}

/** An inline code span holding `text` exactly. */
export function code(text: string, inTable = false): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  const body = inTable ? flat.replace(/\|/g, '\\|') : flat;
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** A JS string literal for MDX JSX (`{"…"}`). */
const jsx = (text: string) => `{${JSON.stringify(text)}}`;

// ---- schemas ----

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

/** The heading id of a shared schema's section. */
export function schemaAnchor(name: string): string {
  return slugify(`${name} object`);
}

function resolve(doc: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  if (schema?.$ref) return doc.components?.schemas?.[refName(schema.$ref)];
  return schema;
}

function schemaLink(name: string): string {
  return `[${code(name)}](#${schemaAnchor(name)})`;
}

/** A short type text for a table cell: `string`, `integer or null`, `array of` a link, … */
export function typeText(schema: Schema | undefined): string {
  if (!schema) return 'any';
  if (schema.$ref) return schemaLink(refName(schema.$ref));
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return [...new Set(variants.map(typeText))].join(' or ');
  if (schema.allOf?.length === 1) return typeText(schema.allOf[0]);
  if (schema.const !== undefined) return code(JSON.stringify(schema.const), true);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const parts = (types.length ? types : [schema.properties ? 'object' : 'any']).map((t) => {
    if (t === 'array') return `array of ${typeText(schema.items)}`;
    if (t === 'string' && schema.format) return `string (${schema.format})`;
    return t;
  });
  return parts.join(' or ');
}

function literal(value: unknown): string {
  return code(JSON.stringify(value), true);
}

/** Allowed values, limits, pattern, default and the schema's own words, for a table cell. */
export function constraintText(schema: Schema | undefined): string {
  if (!schema || schema.$ref) return '';
  const out: string[] = [];
  if (schema.enum) out.push(`one of ${schema.enum.map(literal).join(', ')}`);
  const range = (min: number | undefined, max: number | undefined, unit: string) => {
    if (min !== undefined && max !== undefined) out.push(`${min} to ${max}${unit}`);
    else if (min !== undefined) out.push(`at least ${min}${unit}`);
    else if (max !== undefined) out.push(`at most ${max}${unit}`);
  };
  range(schema.minLength, schema.maxLength, ' characters');
  range(schema.minimum, schema.maximum, '');
  range(schema.minItems, schema.maxItems, ' items');
  if (schema.items && !schema.items.$ref && schema.items.enum) out.push(`items: one of ${schema.items.enum.map(literal).join(', ')}`);
  if (schema.pattern) out.push(`pattern ${code(schema.pattern, true)}`);
  if (schema.default !== undefined) out.push(`default ${literal(schema.default)}`);
  const limits = out.join('; ');
  if (!schema.description) return limits;
  const words = mdText(schema.description.trim(), true);
  return limits ? `${words}${/[.!?]$/.test(schema.description.trim()) ? ' ' : '; '}${limits}` : words;
}

interface Row {
  name: string;
  schema: Schema | undefined;
  required: boolean;
}

function rowsOf(schema: Schema | undefined): Row[] {
  if (!schema?.properties) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, s]) => ({ name, schema: s, required: required.has(name) }));
}

function propertyTable(rows: Row[], first = 'name'): string[] {
  if (rows.length === 0) return [];
  return [
    `| ${first} | type | required | details |`,
    '|---|---|---|---|',
    ...rows.map((r) => `| ${code(r.name, true)} | ${typeText(r.schema)} | ${r.required ? 'yes' : 'no'} | ${constraintText(r.schema)} |`),
  ];
}

/** A JSON:API resource document's parts: the resource schema under `data`, its attributes, its relationships. */
function jsonApiParts(doc: OpenApiDocument, schema: Schema | undefined) {
  const data = resolve(doc, resolve(doc, schema)?.properties?.data);
  const attributes = resolve(doc, data?.properties?.attributes);
  const relationships = resolve(doc, data?.properties?.relationships);
  const type = data?.properties?.type;
  const typeName = type?.enum?.length === 1 ? String(type.enum[0]) : type?.const !== undefined ? String(type.const) : undefined;
  return { data, attributes, relationships, typeName };
}

/** "to-one `filters`", "to-many `reports`" for a relationship's linkage schema. */
function relationshipText(doc: OpenApiDocument, schema: Schema | undefined): string {
  const linkage = resolve(doc, resolve(doc, schema)?.properties?.data);
  const target = (s: Schema | undefined) => {
    const t = resolve(doc, s)?.properties?.type;
    return t?.enum?.length === 1 ? ` ${code(String(t.enum[0]), true)}` : '';
  };
  if (!linkage) return '';
  if (linkage.type === 'array' || (Array.isArray(linkage.type) && linkage.type.includes('array'))) return `to-many${target(linkage.items)}`;
  return `to-one${target(linkage)}`;
}

// ---- examples ----

function exampleValue(doc: OpenApiDocument, schema: Schema | undefined, depth = 0): unknown {
  const s = resolve(doc, schema);
  if (!s || depth > 4) return null;
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined && s.default !== null) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  const variants = s.anyOf ?? s.oneOf;
  if (variants?.length) return exampleValue(doc, variants.find((v) => v.type !== 'null') ?? variants[0], depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      return s.format === 'date-time' ? '2024-06-01T00:00:00Z' : s.format === 'date' ? '2024-06-01' : 'text';
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return s.minItems ? [exampleValue(doc, s.items, depth + 1)] : [];
    default:
      return exampleObject(doc, s, depth + 1, false);
  }
}

/** The required properties (or, when none is required, the first one) with example values. */
function exampleObject(doc: OpenApiDocument, schema: Schema | undefined, depth: number, all: boolean): Record<string, unknown> {
  const s = resolve(doc, schema);
  const out: Record<string, unknown> = {};
  if (!s?.properties) return out;
  const required = new Set(s.required ?? []);
  const names = Object.keys(s.properties).filter((n) => all || required.has(n));
  if (names.length === 0 && !all) names.push(Object.keys(s.properties)[0]!);
  for (const name of names) out[name] = exampleValue(doc, s.properties[name], depth);
  return out;
}

function exampleBody(doc: OpenApiDocument, op: OperationRef, mediaType: string, schema: Schema | undefined): unknown {
  if (mediaType !== 'application/vnd.api+json') return exampleObject(doc, schema, 0, false);
  const { attributes, typeName } = jsonApiParts(doc, schema);
  const idParam = op.path.includes('{id}') && op.method === 'patch' ? { id: pathExample(op, 'id') } : {};
  return { data: { type: typeName ?? 'resources', ...idParam, attributes: exampleObject(doc, attributes, 1, false) } };
}

function pathExample(op: OperationRef, name: string): string {
  const p = op.operation.parameters?.find((x) => x.in === 'path' && x.name === name);
  const ex = p?.schema?.example;
  return typeof ex === 'string' || typeof ex === 'number' ? String(ex) : name.toUpperCase();
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A curl call of the operation against `$CAIRN_API` with the key in `$CAIRN_KEY`. */
export function curlExample(doc: OpenApiDocument, op: OperationRef): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathExample(op, name)));
  const query = (op.operation.parameters ?? [])
    .filter((p) => p.in === 'query' && p.required)
    .map((p) => `${p.name}=${encodeURIComponent(String(exampleValue(doc, p.schema)))}`);
  const url = `$CAIRN_API${path}${query.length ? `?${query.join('&')}` : ''}`;
  const session = op.operation['x-permissions']?.includes('admin session');
  const lines = [`curl -X ${op.method.toUpperCase()} "${url}"`];
  if (isPublic(op.operation)) {
    /* no credentials */
  } else if (session) lines.push(`-H "Authorization: Session $CAIRN_SESSION"`);
  else lines.push(`-H "Authorization: Api $CAIRN_KEY"`);
  const content = op.operation.requestBody?.content ?? {};
  const mediaType = Object.keys(content)[0];
  if (mediaType) {
    lines.push(`-H "Content-Type: ${mediaType}"`);
    lines.push(`-d ${shellQuote(JSON.stringify(exampleBody(doc, op, mediaType, content[mediaType]!.schema)))}`);
  } else {
    lines.push(`-H "Accept: application/vnd.api+json"`);
  }
  return lines.join(' \\\n  ');
}

// ---- operations ----

/**
 * API-server error codes of a status (the data server's own codes are left out; `wrong_region` stays:
 * a key, session or link of the other region's organization gets it from the API server too).
 */
const DATA_SERVER_CODES = new Set<ErrorCode>(['invalid_data_token', 'data_token_expired']);
/** The codes only an API key's check gives: a call that takes no key never answers them. */
const API_KEY_CODES = new Set<ErrorCode>(['invalid_api_key', 'api_key_disabled']);
export function errorCodesFor(status: number, publicCall = false): ErrorCode[] {
  return (Object.entries(ERROR_CODES) as [ErrorCode, number][])
    .filter(([c, s]) => s === status && !DATA_SERVER_CODES.has(c) && !(publicCall && API_KEY_CODES.has(c)))
    .map(([c]) => c);
}

/** An operation whose `security` is empty takes no API key. */
export function isPublic(operation: Operation): boolean {
  return Array.isArray(operation.security) && operation.security.length === 0;
}

export function permissionText(perms: string[] | undefined, publicCall = false): string {
  const prefix = publicCall ? 'no API key; ' : '';
  if (!perms?.length) return publicCall ? 'none (no API key)' : 'none (any valid key)';
  const label = (p: string) => {
    if (p === 'admin session') return 'an admin signed in to the web app (API keys are refused)';
    const l = (PERMISSION_LABELS as Record<string, string>)[p];
    return l ? `${l} (${code(p)})` : /^[a-z_]+$/.test(p) ? code(p) : mdText(p);
  };
  return prefix + (perms.length === 1 ? label(perms[0]!) : `any of ${perms.map(label).join(', ')}`);
}

function responseBodyText(doc: OpenApiDocument, content: Record<string, MediaType> | undefined): string {
  const entry = content ? Object.values(content)[0] : undefined;
  const schema = entry?.schema;
  if (!schema) return '';
  if (schema.$ref) return refName(schema.$ref) === 'Errors' ? '' : schemaLink(refName(schema.$ref));
  const data = schema.properties?.data;
  if (data?.$ref) return schemaLink(refName(data.$ref));
  if (data?.type === 'array' && data.items?.$ref) return `list of ${schemaLink(refName(data.items.$ref))}`;
  return typeText(schema);
}

const usualTexts = new WeakMap<OpenApiDocument, Map<string, string>>();

/** The most common description of each error status across the document. */
function usualErrorTexts(doc: OpenApiDocument): Map<string, string> {
  let found = usualTexts.get(doc);
  if (found) return found;
  const counts = new Map<string, Map<string, number>>();
  for (const { operation } of operationsOf(doc)) {
    for (const [status, r] of Object.entries(operation.responses ?? {})) {
      if (Number(status) < 400 || !r.description) continue;
      const c = counts.get(status) ?? new Map<string, number>();
      c.set(r.description, (c.get(r.description) ?? 0) + 1);
      counts.set(status, c);
    }
  }
  found = new Map([...counts].map(([status, c]) => [status, [...c].sort((a, b) => b[1] - a[1])[0]![0]]));
  usualTexts.set(doc, found);
  return found;
}

function operationSection(doc: OpenApiDocument, op: OperationRef): string[] {
  const { method, path, operation } = op;
  const M = method.toUpperCase();
  const out: string[] = [];
  out.push(`### ${mdEscape(operation.summary ?? `${M} ${path}`)}`, '');
  out.push(
    `<p className="api-endpoint" data-operation=${jsx(`${M} ${path}`)}><code className=${jsx(`api-method api-method--${method}`)}>${jsx(M)}</code>{" "}<code>${jsx(path)}</code></p>`,
    '',
  );
  out.push(`**Permission:** ${permissionText(operation['x-permissions'], isPublic(operation))}`, '');
  if (operation.description) out.push(mdText(operation.description), '');

  const params = operation.parameters ?? [];
  if (params.length) {
    out.push('**Parameters**', '', '| name | in | type | required | details |', '|---|---|---|---|---|');
    for (const p of params) {
      const own = p.schema && p.schema.description === p.description ? { ...p.schema, description: undefined } : p.schema;
      const details = [p.description ? mdText(p.description, true) : '', constraintText(own)].filter(Boolean).join('; ');
      out.push(`| ${code(p.name, true)} | ${p.in} | ${typeText(p.schema)} | ${p.required ? 'yes' : 'no'} | ${details} |`);
    }
    out.push('');
  }

  const body = operation.requestBody;
  const [mediaType, media] = Object.entries(body?.content ?? {})[0] ?? [];
  if (body && mediaType) {
    out.push(`**Request body** (${code(mediaType)}${body.required ? ', required' : ''})`, '');
    if (body.description) out.push(mdText(body.description), '');
    if (mediaType === 'application/vnd.api+json') {
      const { attributes, relationships, typeName } = jsonApiParts(doc, media?.schema);
      if (typeName) out.push(`\`data.type\` is ${code(typeName)}.`, '');
      const rows = rowsOf(attributes);
      if (rows.length) out.push(...propertyTable(rows, 'attribute'), '');
      const rels = Object.entries(resolve(doc, relationships)?.properties ?? {});
      if (rels.length) {
        out.push(`Relationships: ${rels.map(([name, s]) => `${code(name)} (${relationshipText(doc, s)})`).join(', ')}.`, '');
      }
    } else {
      const schema = resolve(doc, media?.schema);
      const rows = rowsOf(schema);
      if (media?.schema?.$ref) out.push(`The body is a ${schemaLink(refName(media.schema.$ref))}.`, '');
      if (rows.length) out.push(...propertyTable(rows, 'field'), '');
      else if (!media?.schema?.$ref) out.push(`Type: ${typeText(media?.schema)}.`, '');
    }
  }

  const responses = Object.entries(operation.responses ?? {});
  const answers = responses.filter(([status]) => Number(status) < 400);
  const errors = responses.filter(([status]) => Number(status) >= 400);
  if (answers.length) {
    out.push('**Responses**', '', '| status | meaning | body |', '|---|---|---|');
    for (const [status, r] of answers) out.push(`| ${code(status, true)} | ${mdText(r.description ?? '', true)} | ${responseBodyText(doc, r.content)} |`);
    out.push('');
  }
  if (errors.length) {
    // One line: the statuses with their error codes; a description only where it says more than usual.
    const usual = usualErrorTexts(doc);
    const items = errors.map(([status, r]) => {
      const codes = errorCodesFor(Number(status), isPublic(operation)).join(', ');
      const special = r.description && r.description !== usual.get(status) ? ` ${mdText(r.description)}` : '';
      return `${code(status)}${codes ? ` (${codes})` : ''}${special}`;
    });
    out.push(`**Errors:** ${items.join(' · ')}`, '');
  }

  out.push('**Example**', '', '```sh', curlExample(doc, op), '```', '');
  return out;
}

function schemaSection(doc: OpenApiDocument, name: string, schema: Schema): string[] {
  const out = [`### ${mdEscape(`${name} object`)}`, ''];
  if (schema.description) out.push(mdText(schema.description), '');
  const attributes = resolve(doc, schema.properties?.attributes);
  if (attributes?.properties) {
    const type = schema.properties?.type;
    if (type?.enum?.length === 1) out.push(`A resource of type ${code(String(type.enum[0]))}.`, '');
    out.push(...propertyTable(rowsOf(attributes), 'attribute'), '');
    const rels = Object.entries(resolve(doc, schema.properties?.relationships)?.properties ?? {});
    if (rels.length) out.push(`Relationships: ${rels.map(([n]) => code(n)).join(', ')}.`, '');
    return out;
  }
  const rows = rowsOf(schema);
  if (rows.length) out.push(...propertyTable(rows, 'field'), '');
  else out.push(`Type: ${typeText(schema)}${constraintText(schema) ? ` (${constraintText(schema)})` : ''}.`, '');
  return out;
}

/** The generated MDX: operations grouped by tag (in order of first appearance), then the schemas. */
export function renderOperations(doc: OpenApiDocument): string {
  const byTag = new Map<string, OperationRef[]>();
  for (const op of operationsOf(doc)) {
    const tag = op.operation.tags?.[0] ?? 'Other';
    if (!byTag.has(tag)) byTag.set(tag, []);
    byTag.get(tag)!.push(op);
  }
  const out: string[] = [];
  for (const [tag, ops] of byTag) {
    out.push(`## ${mdEscape(tag)}`, '');
    out.push(ops.map((op) => `${code(`${op.method.toUpperCase()} ${op.path}`)}`).join(' · '), '');
    for (const op of ops) out.push(...operationSection(doc, op));
  }
  const schemas = Object.entries(doc.components?.schemas ?? {});
  if (schemas.length) {
    out.push('## Schemas', '', 'The objects that request and response bodies above refer to.', '');
    for (const [name, schema] of schemas) out.push(...schemaSection(doc, name, schema));
  }
  return out.join('\n');
}

/** `source` with the marker line replaced by the generated operations (unchanged when there is no marker). */
export function expandOpenApiMarker(source: string, doc: OpenApiDocument): string {
  const lines = source.split('\n');
  const at = lines.findIndex((l) => l.trim() === OPENAPI_MARKER);
  if (at === -1) return source;
  lines.splice(at, 1, renderOperations(doc));
  return lines.join('\n');
}

export function hasOpenApiMarker(source: string): boolean {
  return source.split('\n').some((l) => l.trim() === OPENAPI_MARKER);
}
