/**
 * A query-driven dropdown's options for the report editor's filter bar: `POST /filters/{id}/options`
 * with the dashboard and the filter values in force (the API runs the filter's query as the dashboard's
 * status poll does, sharing its result, and waits for a run under way). The option sets — one per
 * parent value when the query has a third column — are flattened into the filter bar's
 * `{value, label}` list, each value once.
 */
import type { ApiSchema } from '@cairn/client';
import type { ApiClient } from './api.server';
import { errorItems } from './editor.server';
import type { FilterOption } from './filters';

/** One option set of the answer, read defensively (every member may be missing). */
type OptionSet = Partial<Pick<ApiSchema<'FilterOptionSet'>, 'values' | 'value_names'>>;

export type FilterOptionsAnswer = { status: 'ok'; options: FilterOption[] } | { status: 'error'; code: string; message: string; httpStatus: number };

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

export function flattenOptionSets(sets: unknown): FilterOption[] {
  const out: FilterOption[] = [];
  const seen = new Set<string>();
  for (const set of Array.isArray(sets) ? (sets as OptionSet[]) : []) {
    const values = Array.isArray(set?.values) ? set.values : [];
    const names = Array.isArray(set?.value_names) ? set.value_names : [];
    values.forEach((v, i) => {
      if (v === null || v === undefined) return;
      const value = text(v);
      if (seen.has(value)) return;
      seen.add(value);
      const name = names[i];
      out.push({ value, label: name === null || name === undefined ? value : text(name) });
    });
  }
  return out;
}

export async function filterOptions(api: ApiClient, filterId: string, dashboardId: string, parameters: unknown): Promise<FilterOptionsAnswer> {
  const res = await api.raw('POST', `/filters/${encodeURIComponent(filterId)}/options`, {
    body: { dashboard_id: dashboardId, ...(parameters && typeof parameters === 'object' ? { parameters } : {}) },
  });
  if (res.status >= 200 && res.status < 300) return { status: 'ok', options: flattenOptionSets((res.body as { options?: unknown } | null)?.options) };
  const e = errorItems(res.status, res.body)[0];
  return { status: 'error', code: e?.code ?? 'error', message: e?.detail ?? `The API answered ${res.status}.`, httpStatus: res.status };
}
