/**
 * Server helpers of the editor pages (report editor, dashboard editing, datasources): permission
 * gates from the API's session answer, JSON:API writes whose 422 errors go back to the form with their
 * pointers, and the two-step reads through the data server (execution rows, datasource schemas).
 */
import { data } from 'react-router';
import type { ApiClient, ErrorPayload } from './api.server.ts';
import type { ServiceBinding } from './env.server.ts';
import type { ApiErrorItem, ResourceBody } from './editor-forms.ts';
import type { SchemaAnswer, SchemaData } from './editor-completion.ts';
import type { RowsAnswer } from './editor-execution.ts';
import { loadSession } from './session-info.server.ts';
import type { Cell, DataField, SessionInfo } from './types.ts';

export type { RowsAnswer, SchemaAnswer };

const DATA_ORIGIN = 'https://cairn-data.internal';
const DATA_KEY = /^[A-Za-z0-9_\-.=]+(\/[A-Za-z0-9_\-.=]+)*$/;
/** Rows of a result the editor sends to the browser (the saved report uses the whole result). */
export const PREVIEW_ROWS = 2000;

export function can(session: SessionInfo, permission: string): boolean {
  return Array.isArray(session.permissions) && session.permissions.includes(permission);
}

/**
 * The signed-in user's session, refused with a clear 403 when their grants lack `permission`. The API
 * refuses the writes anyway; this keeps people who cannot edit out of edit pages.
 */
export async function requireGrant(
  api: ApiClient,
  permission: 'manage_dashboards' | 'manage_datasources' | 'view_datasources',
  why: string,
): Promise<SessionInfo> {
  const session = await loadSession(api);
  if (!can(session, permission)) throw data<ErrorPayload>({ code: 'forbidden', message: why }, { status: 403 });
  return session;
}

export const EDIT_REFUSED =
  'Your role lets you read dashboards, not change them. Ask an analyst or an administrator of your organization to make this change or to give you the analyst role.';

/** What an action answers to its form: the saved resource, or every error the API gave. */
export type WriteResult<T = unknown> = { ok: true; status: number; body: T } | { ok: false; status: number; errors: ApiErrorItem[] };

export async function write<T = unknown>(
  api: ApiClient,
  method: 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  body?: ResourceBody | Record<string, unknown>,
  jsonapi = true,
): Promise<WriteResult<T>> {
  const res = await api.raw(method, path, body === undefined ? {} : { body, jsonapi });
  if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, body: res.body as T };
  return { ok: false, status: res.status, errors: errorItems(res.status, res.body) };
}

export function errorItems(status: number, body: unknown): ApiErrorItem[] {
  const list = (body as { errors?: unknown } | null)?.errors;
  if (Array.isArray(list) && list.length) return list as ApiErrorItem[];
  return [{ status: String(status), code: `http_${status}`, detail: status === 404 ? 'This call is not available.' : `The API answered ${status}.` }];
}

interface DataHandle {
  data_key?: unknown;
  data_access_token?: unknown;
}

/** GET on the data server through the DATA binding with a data token from the API. */
async function fromDataServer(
  dataServer: ServiceBinding,
  path: 'data' | 'schema',
  handle: DataHandle,
  query = '',
): Promise<{ ok: true; body: unknown } | { ok: false; message: string }> {
  const { data_key: key, data_access_token: token } = handle;
  if (typeof key !== 'string' || typeof token !== 'string' || !DATA_KEY.test(key) || key.includes('..')) {
    return { ok: false, message: 'The API answered without a usable data key.' };
  }
  let res: Response;
  try {
    res = await dataServer.fetch(`${DATA_ORIGIN}/${path}/${key}${query}`, { headers: { Authorization: `Data ${token}`, Accept: 'application/json' } });
  } catch {
    return { ok: false, message: 'The data server could not be reached.' };
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    return { ok: false, message: `The data server answered ${res.status} with a body the app cannot read.` };
  }
  if (!res.ok) {
    const detail = (body as { errors?: { detail?: string }[] } | null)?.errors?.[0]?.detail;
    return { ok: false, message: detail || `The data server answered ${res.status}.` };
  }
  return { ok: true, body };
}

/** The API has no such call (an older server): 404 "No route for …" or 405. */
export function callMissing(status: number, body: unknown): boolean {
  if (status === 405) return true;
  return status === 404 && /^No route for /.test(errorItems(status, body)[0]?.detail ?? '');
}

/** A datasource's schema: `GET /datasources/{id}/schema` on the API, then `GET /schema/{key}` on the data server. */
export async function loadSchema(api: ApiClient, dataServer: ServiceBinding, datasourceId: string, name?: string | null): Promise<SchemaAnswer> {
  const q = name ? `?name=${encodeURIComponent(name)}` : '';
  const res = await api.raw('GET', `/datasources/${encodeURIComponent(datasourceId)}/schema${q}`);
  if (callMissing(res.status, res.body)) return { status: 'unavailable', message: 'The schema browser is not available on this server yet.' };
  if (res.status < 200 || res.status >= 300)
    return { status: 'error', message: errorItems(res.status, res.body)[0]?.detail ?? `The API answered ${res.status}.` };
  const fetched = await fromDataServer(dataServer, 'schema', res.body as DataHandle);
  if (!fetched.ok) return { status: 'error', message: fetched.message };
  const schemas = (fetched.body as { schemas?: unknown } | null)?.schemas;
  if (!Array.isArray(schemas)) return { status: 'error', message: 'The data server sent a schema the app cannot read.' };
  return { status: 'ok', schema: { schemas: schemas as SchemaData['schemas'] } };
}

/**
 * A page of a finished execution's rows: PREVIEW_ROWS of them from `offset` (the first page by
 * default), asked of the data server as that page (`?offset=&limit=`), never the whole result.
 */
export async function executionRows(api: ApiClient, dataServer: ServiceBinding, executionId: string, offset = 0): Promise<RowsAnswer> {
  const res = await api.raw('GET', `/executions/${encodeURIComponent(executionId)}/data`);
  if (res.status === 204) return { status: 'empty' };
  if (res.status < 200 || res.status >= 300)
    return { status: 'error', message: errorItems(res.status, res.body)[0]?.detail ?? `The API answered ${res.status}.` };
  const start = Number.isSafeInteger(offset) && offset > 0 ? offset : 0;
  const fetched = await fromDataServer(dataServer, 'data', res.body as DataHandle, `?offset=${start}&limit=${PREVIEW_ROWS}`);
  if (!fetched.ok) return { status: 'error', message: fetched.message };
  const doc = fetched.body as { fields?: DataField[]; rows?: Cell[][]; row_count?: number; data_timestamp?: string | null } | null;
  if (!doc || !Array.isArray(doc.fields) || !Array.isArray(doc.rows)) return { status: 'error', message: 'The data server sent a result the app cannot read.' };
  const rowCount = typeof doc.row_count === 'number' ? doc.row_count : start + doc.rows.length;
  if (rowCount === 0) return { status: 'empty' };
  return {
    status: 'ok',
    fields: doc.fields,
    rows: doc.rows,
    rowCount,
    truncated: rowCount > PREVIEW_ROWS,
    offset: start,
    dataTimestamp: doc.data_timestamp ?? null,
  };
}

/** Every page of a JSON:API list (page[size]=200), for pickers that need the whole list. */
export async function listAll<A>(
  api: ApiClient,
  path: string,
  maxPages = 10,
): Promise<{ id: string; type: string; attributes: A; relationships?: Record<string, { data?: unknown }>; meta?: Record<string, unknown> }[]> {
  const out: { id: string; type: string; attributes: A }[] = [];
  const sep = path.includes('?') ? '&' : '?';
  for (let page = 1; page <= maxPages; page++) {
    const doc = await api.get<{ data: { id: string; type: string; attributes: A }[]; links?: { next?: string | null } }>(
      `${path}${sep}page[size]=200&page[number]=${page}`,
    );
    out.push(...doc.data);
    if (!doc.links?.next || doc.data.length < 200) break;
  }
  return out;
}
