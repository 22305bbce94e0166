/** What the administration pages share on the server: who is asking, list reads, form fields, action answers. */
import type { ResourceObject } from '@cairn/core';
import type { ApiClient, ApiResult } from '../../lib/api.server';
import { loadSession } from '../../lib/session-info.server';

export interface Viewer {
  userId: string;
  role: string;
  /** Permission names from the API's session answer (drawn as affordances only; the API decides). */
  permissions: string[];
}

export async function loadViewer(api: ApiClient): Promise<Viewer> {
  const s = await loadSession(api);
  return { userId: s.user.id, role: s.user.role, permissions: s.permissions ?? [] };
}

export interface ListDoc<A> {
  data: ResourceObject<A>[];
  included?: ResourceObject[];
  meta?: { total?: number };
}

/** One page of up to 200 (the API's maximum); the pages say when there are more. */
export function listPath(path: string, page = 1): string {
  const sep = path.includes('?') ? '&' : '?';
  return `${path}${sep}page[size]=200&page[number]=${Math.max(1, Math.floor(page))}`;
}

export function pageOf(request: Request): number {
  const n = Number(new URL(request.url).searchParams.get('page'));
  return Number.isInteger(n) && n > 0 ? n : 1;
}

export const field = (form: FormData, name: string): string => String(form.get(name) ?? '').trim();
export const fields = (form: FormData, name: string): string[] => form.getAll(name).map(String).filter(Boolean);
export const checked = (form: FormData, name: string): boolean => form.get(name) === 'on' || form.get(name) === 'true';

export type ActionAnswer<T = undefined> =
  | { ok: true; intent: string; target?: string; message?: string; value?: T }
  | { ok: false; intent: string; target?: string; error: string };

/** An API call's outcome as the page shows it next to the thing acted on. */
export function answer<T>(res: ApiResult<unknown>, intent: string, target?: string, ok?: { message?: string; value?: T }): ActionAnswer<T> {
  if (res.ok) return { ok: true, intent, target, ...ok };
  return { ok: false, intent, target, error: res.problem.message };
}

export const jsonapi = (type: string, attributes: Record<string, unknown>, id?: string, relationships?: Record<string, unknown>) => ({
  data: { type, ...(id ? { id } : {}), attributes, ...(relationships ? { relationships } : {}) },
});

export const toMany = (type: string, ids: string[]) => ({ data: ids.map((id) => ({ type, id })) });

export function relatedIds(r: ResourceObject<unknown>, name: string): string[] {
  const d = r.relationships?.[name]?.data;
  return Array.isArray(d) ? d.map((x) => x.id) : d ? [d.id] : [];
}
