import { ApiError, type InputParameters } from '@cairn/core';
import type { dashboards, filters } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { MANUAL_DROPDOWNS, QUERY_DROPDOWNS, queryOptionValues } from './options.ts';
import { dashboardFilterRows } from '../../engine/dashboard-run.ts';

type FilterRow = typeof filters.$inferSelect;
type DashboardRow = typeof dashboards.$inferSelect;

/*
 * The rules a dashboard's filters set for the values of a data call (status, refresh, data, report
 * data and refresh), checked on the parameters as they will run (the request's merged over the
 * dashboard's default_parameters):
 * - `required`: the filter needs a value — selected in the parameters, or its own default_values, or
 *   (dropdown_default_to_first) the first option of its dropdown. Missing → 422 missing_attribute.
 * - `dropdown_validate`: every selected value of the dropdown must be one of its options (a manual
 *   dropdown's values; a query dropdown's options from its query run with the same parameters, when
 *   that run is available). Otherwise → 422 invalid_attribute.
 * - date_time_aggregation: all_time only when listed in allowed_aggregations (the SQL compiler checks
 *   the same for filters a query uses; here it holds for every filter of the dashboard).
 * Each problem names the filter and points into the body's `parameters`.
 */
const label = (f: Pick<FilterRow, 'display_name' | 'variable_name'>) =>
  f.display_name && f.display_name !== f.variable_name ? `"${f.display_name}" (${f.variable_name})` : `"${f.variable_name}"`;

const blank = (v: unknown) => v === null || v === undefined || (typeof v === 'string' && v.trim() === '');

/** Where the filter's selection sits in `parameters.filters` (index), and its non-blank values. */
function selectionOf(parameters: InputParameters, variable: string): { index: number; values: unknown[] } | null {
  const list = Array.isArray(parameters.filters) ? parameters.filters : [];
  const index = list.findIndex((s) => s && s.variable_name === variable);
  if (index === -1) return null;
  const raw = list[index]!.selected_values;
  return { index, values: Array.isArray(raw) ? raw.filter((v) => !blank(v)) : [] };
}

/** A value as it compares with an option: numbers as numbers, booleans as booleans, the rest as text. */
function comparable(v: unknown, valueType: string): string {
  if (valueType === 'NUMBER') {
    const n = typeof v === 'number' ? v : Number(v);
    return Number.isFinite(n) ? `n:${n}` : `s:${String(v)}`;
  }
  if (valueType === 'BOOLEAN') return v === true || v === 'true' ? 'b:true' : v === false || v === 'false' ? 'b:false' : `s:${String(v)}`;
  return `s:${typeof v === 'string' ? v : JSON.stringify(v)}`;
}

/** Whether the filter has a value to run with although none was selected. */
function hasFallback(f: FilterRow): boolean {
  if (Array.isArray(f.default_values) && f.default_values.some((v) => !blank(v))) return true;
  if (f.dropdown_default_to_first) {
    if (MANUAL_DROPDOWNS.has(f.control_type)) return (f.values ?? []).length > 0;
    if (QUERY_DROPDOWNS.has(f.control_type)) return Boolean(f.sql_query);
  }
  return false;
}

/** Filters marked required that have no value in these parameters and no default: one 422 each. */
export function missingRequired(rows: FilterRow[], parameters: InputParameters): ApiError[] {
  const problems: ApiError[] = [];
  for (const f of rows) {
    if (!f.required) continue;
    const sel = selectionOf(parameters, f.variable_name);
    if (sel && sel.values.length) continue;
    if (hasFallback(f)) continue;
    problems.push(
      new ApiError('missing_attribute', `The filter ${label(f)} is required: give it a value in parameters.filters (it has no default).`, {
        source: { pointer: sel ? `/parameters/filters/${sel.index}/selected_values` : '/parameters/filters' },
        meta: { filter_id: f.id, variable_name: f.variable_name },
      }),
    );
  }
  return problems;
}

/** Selected values that break dropdown_validate or the all_time rule. */
async function invalidSelections(ctx: ServiceContext, rows: FilterRow[], parameters: InputParameters, dashboard: DashboardRow): Promise<ApiError[]> {
  const problems: ApiError[] = [];
  for (const f of rows) {
    const sel = selectionOf(parameters, f.variable_name);
    if (!sel || !sel.values.length) continue;
    const pointer = (i: number) => `/parameters/filters/${sel.index}/selected_values/${i}`;
    if (f.control_type === 'date_time_aggregation') {
      const allowed = f.allowed_aggregations?.length ? f.allowed_aggregations : null;
      sel.values.forEach((v, i) => {
        if (v === 'all_time' && !(allowed ?? []).includes('all_time')) {
          problems.push(
            new ApiError('invalid_attribute', `The filter ${label(f)} does not offer the all_time aggregation (it is not in its allowed_aggregations).`, {
              source: { pointer: pointer(i) },
              meta: { filter_id: f.id, variable_name: f.variable_name },
            }),
          );
        }
      });
      continue;
    }
    if (!f.dropdown_validate) continue;
    let options: unknown[] | null = null;
    if (MANUAL_DROPDOWNS.has(f.control_type)) options = f.values ?? [];
    else if (QUERY_DROPDOWNS.has(f.control_type) && f.sql_query) options = await queryOptionValues(ctx, f, dashboard, parameters);
    // Options that cannot be read now (the query failed or has not run) cannot be checked against.
    if (options === null) continue;
    const known = new Set(options.map((o) => comparable(o, f.value_type)));
    sel.values.forEach((v, i) => {
      if (!known.has(comparable(v, f.value_type))) {
        problems.push(
          new ApiError(
            'invalid_attribute',
            `${JSON.stringify(v)} is not one of the options of the filter ${label(f)}, which only accepts its options (dropdown_validate).`,
            {
              source: { pointer: pointer(i) },
              meta: { filter_id: f.id, variable_name: f.variable_name },
            },
          ),
        );
      }
    });
  }
  return problems;
}

const together = (problems: ApiError[]) => {
  const [first, ...more] = problems;
  return new ApiError(first!.code, first!.message, { source: first!.source, meta: first!.meta, more });
};

/**
 * Throws one 422 listing every broken rule for these (merged) parameters; `required: false` checks
 * only the values given (the status poll reports missing required filters per report instead).
 */
export async function enforceFilterRules(
  ctx: ServiceContext,
  dashboard: DashboardRow,
  parameters: InputParameters,
  opts: { required?: boolean; rows?: FilterRow[] } = {},
): Promise<FilterRow[]> {
  const rows = opts.rows ?? (await dashboardFilterRows(ctx, dashboard.id));
  if (!rows.length) return rows;
  const problems = [...(opts.required === false ? [] : missingRequired(rows, parameters)), ...(await invalidSelections(ctx, rows, parameters, dashboard))];
  if (problems.length) throw together(problems);
  return rows;
}
