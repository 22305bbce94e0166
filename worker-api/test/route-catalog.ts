/**
 * Every operation of the API, read from its own OpenAPI document, with what a caller needs to reach
 * it: which kind of resource each path parameter names, a request body that passes validation, and
 * the relationships and id-bearing members a body can carry. The isolation suite
 * (isolation.test.ts) and the malformed-input fuzz (fuzz-kit.ts, run by fuzz-*.test.ts) both walk this list, so a route
 * added to the API is exercised without anyone listing it here — unless its path parameter names a
 * kind this file does not know, or its body needs members no base body gives: then both suites fail
 * and say which route to describe.
 */
import { env } from 'cloudflare:test';
import { newId, randomString } from '@cairn/core';
import { exportJobs } from '@cairn/db';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { call, db, jsonApi, makeKey, makeOrg, makeUser } from './fixtures.ts';
import { signRenderToken } from '../src/resources/export-jobs/render-token.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Operation {
  method: Method;
  /** The OpenAPI path, e.g. /dashboards/{id}/share. */
  path: string;
  params: string[];
  body: { kind: 'jsonapi' | 'action'; required: boolean; schema: any } | null;
  /** An operation with `security: []` takes no key (sharing links, print views). */
  public: boolean;
}

/** The resource kinds a path parameter can name (the collection segment before it). */
const ID_KINDS = [
  'dashboards',
  'reports',
  'dashboard_groups',
  'dashboard_sharing_links',
  'export_jobs',
  'filters',
  'sql_snippets',
  'dashboard_schedules',
  'datasources',
  'datasource_agents',
  'sql_alerts',
  'users',
  'user_groups',
  'api_keys',
  'executions',
  'invitations',
] as const;
export type IdKind = (typeof ID_KINDS)[number];
/** Path tokens: a sharing link's public token, a print view's signed render token. */
export type TokenKind = 'link_token' | 'render_token';

/** What `{param}` at position `i` of the path's segments names; null when this file does not know. */
function paramKind(segments: string[], i: number): IdKind | TokenKind | null {
  const name = segments[i]!.slice(1, -1);
  const before = segments[i - 1];
  if (name === 'token') return before === 'links' ? 'link_token' : before === 'render' ? 'render_token' : null;
  if (name !== 'id') return null;
  if (before === 'invite' && segments[i - 2] === 'users') return 'invitations';
  return (ID_KINDS as readonly string[]).includes(before ?? '') ? (before as IdKind) : null;
}

let cachedDoc: any = null;
export async function openApiDocument() {
  cachedDoc ??= (await call('/openapi.json')).json;
  return cachedDoc;
}

/** Resolves `$ref`s of the document (one level at a time, as the walkers need them). */
function deref(doc: any, schema: any): any {
  let s = schema;
  while (s && s.$ref) s = doc.components.schemas[s.$ref.split('/').pop()];
  return s ?? {};
}

export async function operations(): Promise<Operation[]> {
  const doc = await openApiDocument();
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [m, op] of Object.entries<any>(item)) {
      const method = m.toUpperCase() as Method;
      const params = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name as string);
      let body: Operation['body'] = null;
      // A GET cannot carry a body over fetch; such a documented body is not sent.
      if (op.requestBody && method !== 'GET') {
        const jsonapi = op.requestBody.content['application/vnd.api+json'];
        const content = jsonapi ?? op.requestBody.content['application/json'];
        body = { kind: jsonapi ? 'jsonapi' : 'action', required: !!op.requestBody.required, schema: deref(doc, content.schema) };
      }
      ops.push({ method, path, params, body, public: Array.isArray(op.security) && op.security.length === 0 });
    }
  }
  return ops;
}

/** The kinds of every path parameter of an operation; throws naming the operation when one is unknown. */
export function paramKinds(op: Operation): (IdKind | TokenKind)[] {
  const segments = op.path.split('/');
  return segments.flatMap((s, i) => {
    if (!s.startsWith('{')) return [];
    const kind = paramKind(segments, i);
    if (!kind) throw new Error(`${op.method} ${op.path}: unknown path parameter ${s}; describe it in test/route-catalog.ts (paramKind)`);
    return [kind];
  });
}

/** The JSON:API type and the attribute and relationship schemas of a JSON:API body. */
export function jsonApiParts(doc: any, op: Operation) {
  const data = deref(doc, op.body!.schema.properties.data);
  const typeSchema = deref(doc, data.properties.type);
  const type = (typeSchema.const ?? typeSchema.enum?.[0]) as string;
  const attrs = deref(doc, data.properties.attributes);
  const rels = deref(doc, data.properties.relationships);
  const relationships = Object.entries<any>(rels.properties ?? {}).map(([name, s]) => {
    const linkage = deref(doc, deref(doc, s).properties.data);
    const many = linkage.type === 'array';
    const ident = deref(doc, many ? linkage.items : ((linkage.anyOf ?? [linkage]).find((x: any) => x.type === 'object') ?? linkage));
    const t = deref(doc, ident.properties.type);
    return { name, many, type: (t.const ?? t.enum?.[0]) as IdKind, required: (rels.required ?? []).includes(name) };
  });
  return { type, attributes: (attrs.properties ?? {}) as Record<string, any>, required: (attrs.required ?? []) as string[], relationships };
}

/** An organization full of resources, each named with the organization's marker. */
export interface World {
  org: CreateOrganizationResult;
  key: string;
  /** An admin's signed-in session. */
  session: string;
  marker: string;
  ids: Record<IdKind, string>;
  linkToken: string;
  /**
   * An empty dashboard that the creates of the suites attach their reports, links and schedules to, so
   * that the status, refresh and export calls on `ids.dashboards` never run what the suites made.
   */
  scratchDashboard: string;
  /** A report on the scratch dashboard (what a report duplicate made by the suites lands beside). */
  scratchReport: string;
  /** Every id of this organization's resources made here (for "never in another's answer"). */
  allIds: string[];
}

const made = async (res: Promise<{ status: number; json: any }>, what: string) => {
  const r = await res;
  if (r.status >= 300) throw new Error(`making ${what}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json.data.id as string;
};

export async function buildWorld(label: string): Promise<World> {
  const org = await makeOrg(label);
  const orgId = org.organization.id;
  const key = await makeKey(orgId);
  const admin = await makeUser(orgId, 'admin');
  const viewer = await makeUser(orgId, 'viewer');
  const marker = `${label}${randomString(8)}`;
  const datasourceRel = { datasource: { data: { type: 'datasources', id: org.sampleDatasource.id } } };
  const dashboard = await made(jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: `${marker} dashboard` } }, key), 'dashboard');
  const onDashboard = { dashboard: { data: { type: 'dashboards', id: dashboard } } };
  const report = await made(
    jsonApi(
      '/reports',
      'POST',
      {
        type: 'reports',
        attributes: { name: `${marker} report`, sql_query: `SELECT '${marker}' AS secret` },
        relationships: { ...onDashboard, ...datasourceRel },
      },
      key,
    ),
    'report',
  );
  const filter = await made(
    jsonApi(
      '/filters',
      'POST',
      {
        type: 'filters',
        attributes: { variable_name: `${marker.toLowerCase()}_f`, display_name: `${marker} filter`, control_type: 'input', value_type: 'TEXT' },
        relationships: { dashboards: { data: [{ type: 'dashboards', id: dashboard }] } },
      },
      key,
    ),
    'filter',
  );
  const snippet = await made(
    jsonApi('/sql_snippets', 'POST', { type: 'sql_snippets', attributes: { name: `${marker.toLowerCase()}_s`, text: `'${marker}'` } }, key),
    'snippet',
  );
  const linkRes = await jsonApi(
    '/dashboard_sharing_links',
    'POST',
    { type: 'dashboard_sharing_links', attributes: { name: `${marker} link` }, relationships: onDashboard },
    key,
  );
  const link = await made(Promise.resolve(linkRes), 'sharing link');
  const schedule = await made(
    jsonApi(
      '/dashboard_schedules',
      'POST',
      {
        type: 'dashboard_schedules',
        attributes: { name: `${marker} schedule`, emails: `${marker.toLowerCase()}@example.test`, attach_as: 'pdf', schedule: 'daily;08:00' },
        relationships: onDashboard,
      },
      key,
    ),
    'schedule',
  );
  const alert = await made(
    jsonApi(
      '/sql_alerts',
      'POST',
      {
        type: 'sql_alerts',
        attributes: {
          name: `${marker} alert`,
          sql_query: 'select 1',
          run_schedule: 'every',
          run_every: 60,
          trigger_condition: 'has_results',
          email_condition: 'triggered',
        },
        relationships: datasourceRel,
      },
      key,
    ),
    'alert',
  );
  const datasource = await made(
    jsonApi(
      '/datasources',
      'POST',
      {
        type: 'datasources',
        attributes: {
          name: `${marker} datasource`,
          database_type: 'postgres',
          connection_mode: 'direct',
          host: 'db.example.test',
          username: 'reader',
          password: 'pw',
        },
      },
      key,
    ),
    'datasource',
  );
  const agent = await made(jsonApi('/datasource_agents', 'POST', { type: 'datasource_agents', attributes: { name: `${marker} agent` } }, key), 'agent');
  const group = await made(
    jsonApi(
      '/dashboard_groups',
      'POST',
      {
        type: 'dashboard_groups',
        attributes: { name: `${marker} group` },
        relationships: { dashboards: { data: [{ type: 'dashboards', id: dashboard }] } },
      },
      key,
    ),
    'dashboard group',
  );
  const userGroup = await made(jsonApi('/user_groups', 'POST', { type: 'user_groups', attributes: { name: `${marker} users` } }, key), 'user group');
  const invitation = await made(
    call('/users/invite', { key, method: 'POST', body: { email: `${marker.toLowerCase()}-invited@example.test`, role: 'viewer' } }),
    'invitation',
  );
  const apiKey = await made(
    jsonApi(
      '/api_keys',
      'POST',
      { type: 'api_keys', attributes: { name: `${marker} key`, permissions: [{ permission: 'view_dashboards', resources: null }] } },
      { session: admin.session },
    ),
    'api key',
  );
  const ran = await call(`/datasources/${org.sampleDatasource.id}/executions`, { key, method: 'POST', body: { sql_query: `select '${marker}' as secret` } });
  const execution = ran.json?.execution_id as string;
  if (!execution) throw new Error(`making an execution: ${ran.status} ${JSON.stringify(ran.json)}`);
  const exportJob = newId('export_job');
  await db()
    .insert(exportJobs)
    .values({ id: exportJob, organization_id: orgId, kind: 'dashboard_pdf', dashboard_id: dashboard, job_status: 'success', file_key: `eu/${marker}.pdf` });
  const scratchDashboard = await made(
    jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: `${marker} scratch` } }, key),
    'scratch dashboard',
  );
  const scratchReport = await made(
    jsonApi(
      '/reports',
      'POST',
      {
        type: 'reports',
        attributes: { name: `${marker} scratch report`, sql_query: 'SELECT 1 AS one' },
        relationships: { dashboard: { data: { type: 'dashboards', id: scratchDashboard } }, ...datasourceRel },
      },
      key,
    ),
    'scratch report',
  );
  const ids: Record<IdKind, string> = {
    dashboards: dashboard,
    reports: report,
    dashboard_groups: group,
    dashboard_sharing_links: link,
    export_jobs: exportJob,
    filters: filter,
    sql_snippets: snippet,
    dashboard_schedules: schedule,
    datasources: datasource,
    datasource_agents: agent,
    sql_alerts: alert,
    users: viewer.id,
    user_groups: userGroup,
    api_keys: apiKey,
    executions: execution,
    invitations: invitation,
  };
  return {
    org,
    key,
    session: admin.session,
    marker,
    ids,
    linkToken: linkRes.json.data.attributes.token,
    scratchDashboard,
    scratchReport,
    allIds: [...Object.values(ids), scratchDashboard, scratchReport, orgId, org.sampleDashboard.id, org.sampleDatasource.id, admin.id, org.admin.id],
  };
}

/** A print-view token signed by this API (the test pool's SECRET_KEY) naming an organization and a dashboard. */
export function renderToken(org: string, dashboard: string) {
  return signRenderToken({ org, dashboard, report: null, parameters: {}, mode: 'light', width: 1200 }, env.SECRET_KEY);
}

/** The kind an action body member names: `dashboard_id` → dashboards, `user_group_ids` → user_groups. */
export function memberKind(name: string): { kind: IdKind; many: boolean } | null {
  const m = /^(.*)_(id|ids)$/.exec(name);
  if (!m) return null;
  const kind = `${m[1]}s`;
  return (ID_KINDS as readonly string[]).includes(kind) ? { kind: kind as IdKind, many: m[2] === 'ids' } : null;
}

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}${randomString(4).toLowerCase()}`;

/**
 * A create's attributes that pass validation, by JSON:API type, and the relationships it needs
 * (filled with the caller's own resources by `baseJsonApiBody`). Fresh names on every call.
 */
const CREATE_ATTRIBUTES: Record<string, () => Record<string, unknown>> = {
  dashboards: () => ({ name: `Made ${unique()}` }),
  reports: () => ({ name: `Made ${unique()}`, sql_query: 'select 1 as one' }),
  dashboard_groups: () => ({ name: `Made ${unique()}` }),
  dashboard_sharing_links: () => ({ name: `Made ${unique()}` }),
  filters: () => ({ variable_name: `v_${unique()}`, control_type: 'input', value_type: 'TEXT' }),
  sql_snippets: () => ({ name: `s_${unique()}`, text: '1' }),
  dashboard_schedules: () => ({ name: `Made ${unique()}`, emails: 'someone@example.test', attach_as: 'pdf', schedule: 'daily;08:00' }),
  datasources: () => ({
    name: `Made ${unique()}`,
    database_type: 'postgres',
    connection_mode: 'direct',
    host: 'db.example.test',
    username: 'u',
    password: 'p',
  }),
  datasource_agents: () => ({ name: `Made ${unique()}` }),
  sql_alerts: () => ({
    name: `Made ${unique()}`,
    sql_query: 'select 1',
    run_schedule: 'every',
    run_every: 60,
    trigger_condition: 'has_results',
    email_condition: 'triggered',
  }),
  user_groups: () => ({ name: `Made ${unique()}` }),
  api_keys: () => ({ name: `Made ${unique()}`, permissions: [{ permission: 'view_dashboards', resources: null }] }),
};
const CREATE_RELATIONSHIPS: Record<string, string[]> = {
  reports: ['dashboard', 'datasource'],
  dashboard_sharing_links: ['dashboard'],
  dashboard_schedules: ['dashboard'],
  sql_alerts: ['datasource'],
};

/** An action body that passes validation (members the operation requires), by "METHOD path". */
const ACTION_BODIES: Record<string, (w: World) => Record<string, unknown>> = {
  'POST /public/links/{token}/password': () => ({ password: 'not the password' }),
  'POST /public/links/{token}/reports/{id}/data': () => ({ data_format: 'csv' }),
  'PUT /dashboards/{id}/layout': () => ({ layout: [] }),
  'POST /dashboards/{id}/share': () => ({ share_mode: 'custom', user_group_ids: [] }),
  'POST /dashboards/{id}/series_colors': () => ({ values: ['Catalogued'] }),
  'POST /dashboard_groups/sort': () => ({ dashboard_group_ids: [] }),
  'POST /users/invite': () => ({ email: `invited-${unique()}@example.test` }),
  'POST /datasources/{id}/executions': () => ({ sql_query: 'select 1 as one' }),
  'POST /dashboards/{id}/data': () => ({ data_format: 'json' }),
  'POST /reports/{id}/data': () => ({ data_format: 'json' }),
};

/** Backups are made by the API itself: a restore body is the answer of POST /dashboards/{id}/backup. */
const backups = new Map<string, unknown>();
async function backupOf(w: World) {
  if (!backups.has(w.marker)) {
    backups.set(w.marker, (await call(`/dashboards/${w.ids.dashboards}/backup`, { key: w.key, method: 'POST' })).json);
  }
  return backups.get(w.marker);
}

/** A body for the operation that passes validation, made of `own`'s resources. */
export async function baseBody(doc: any, op: Operation, own: World, ids: Record<string, string>): Promise<unknown> {
  if (!op.body) return undefined;
  if (op.body.kind === 'action') {
    if (op.method === 'POST' && op.path === '/dashboards/restore') return structuredClone(await backupOf(own));
    const body = ACTION_BODIES[`${op.method} ${op.path}`]?.(own) ?? {};
    const required: string[] = op.body.schema.required ?? [];
    const missing = required.filter((k) => !(k in body));
    if (missing.length)
      throw new Error(`${op.method} ${op.path}: no base body member for ${missing.join(', ')}; add one to ACTION_BODIES in test/route-catalog.ts`);
    return body;
  }
  const parts = jsonApiParts(doc, op);
  const isUpdate = op.method === 'PATCH';
  const data: Record<string, unknown> = { type: parts.type };
  if (isUpdate) {
    data.id = op.params.includes('id') ? ids.id : own.org.organization.id; // PATCH /organization: the organization's id
    data.attributes = {};
    return { data };
  }
  const attributes = CREATE_ATTRIBUTES[parts.type];
  if (!attributes) throw new Error(`${op.method} ${op.path}: no create attributes for ${parts.type}; add them to CREATE_ATTRIBUTES in test/route-catalog.ts`);
  data.attributes = attributes();
  const rels: Record<string, unknown> = {};
  for (const r of parts.relationships) {
    if (!r.required && !CREATE_RELATIONSHIPS[parts.type]?.includes(r.name)) continue;
    const id =
      r.type === 'datasources' && r.name === 'datasource' ? own.org.sampleDatasource.id : r.type === 'dashboards' ? own.scratchDashboard : own.ids[r.type];
    rels[r.name] = { data: r.many ? [{ type: r.type, id }] : { type: r.type, id } };
  }
  if (Object.keys(rels).length) data.relationships = rels;
  return { data };
}

/** Fills an operation's path with the given ids (by the kind of each parameter). */
export async function fillPath(op: Operation, pick: (kind: IdKind | TokenKind) => string | Promise<string>) {
  const kinds = paramKinds(op);
  let i = 0;
  const values: string[] = [];
  for (const k of kinds) values.push(await pick(k));
  const ids: Record<string, string> = {};
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = values[i++]!;
    ids[name] = v;
    return encodeURIComponent(v);
  });
  return { path, ids };
}
