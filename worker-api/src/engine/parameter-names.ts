/**
 * Fail closed on parameters (issue 16): a value for a name that nothing uses must never run as "no
 * filter". Every call that takes parameters checks them here before anything runs:
 * - each `filters[i].variable_name` must name a filter of the dashboard, a built-in (timerange,
 *   aggregation) or a variable of the SQL the call runs (a report's, or an ad hoc execution's: such a
 *   variable is an ad hoc filter whose values apply). Otherwise → 422 invalid_attribute pointing at the
 *   entry's variable_name, with the closest known name as a hint ("did you mean `country`?").
 * - `timerange` must be a readable range (`start~end`, either side may be empty), whether or not a
 *   report uses it.
 * The dashboard's filter names are cheap (the status poll holds them already); the SQL's variables are
 * read only when a name is not among them, so the hot path costs nothing extra.
 */
import { and, eq } from 'drizzle-orm';
import { ApiError, type InputParameters } from '@cairn/core';
import { parseRange } from '@cairn/core/sql/ranges';
import { dashboardFilters, filters, reports } from '@cairn/db';
import type { ServiceContext } from '../lib/context.ts';
import { organizationSnippets, readReferences } from '../resources/sql-snippets/references.ts';
import { throwAll } from '../lib/problems.ts';

const BUILT_INS = ['timerange', 'aggregation'] as const;

/** Edit distance (Levenshtein), for the hint only. */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The known name a mistyped one most likely meant: same letters in another case, else the nearest within a third of its length. */
function closestName(name: string, known: Iterable<string>): string | null {
  const list = [...known];
  const folded = list.find((k) => k.toLowerCase() === name.toLowerCase());
  if (folded) return folded;
  let best: string | null = null;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const k of list) {
    const d = distance(name.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/** Where the parameters sit in the request body: `/parameters` for action bodies, `/data/attributes/parameters` for documents. */
type ParametersPointer = '/parameters' | '/data/attributes/parameters' | (string & {});

/** The problems of these parameters against the known names (no I/O). */
function parameterProblems(parameters: InputParameters | null | undefined, known: ReadonlySet<string>, pointer: ParametersPointer): ApiError[] {
  const problems: ApiError[] = [];
  if (!parameters) return problems;
  const timerange = parameters.timerange;
  if (typeof timerange === 'string' && timerange.trim() !== '') {
    try {
      // The format does not depend on the zone; the run reads it again in the dashboard's zone.
      parseRange(timerange, 'instant', { filter: 'timerange', pointer: `${pointer}/timerange` }, { zone: 'UTC', dataZone: 'UTC' });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      problems.push(
        new ApiError(
          'invalid_attribute',
          `timerange ${JSON.stringify(timerange)} is not a range: write start~end in unix seconds (or dates), either side may be empty, such as "1717200000~1719792000".`,
          { source: { pointer: `${pointer}/timerange` } },
        ),
      );
    }
  }
  const list = Array.isArray(parameters.filters) ? parameters.filters : [];
  list.forEach((entry, i) => {
    const name = entry?.variable_name;
    if (typeof name !== 'string' || known.has(name)) return;
    const hint = closestName(name, known);
    problems.push(
      new ApiError(
        'invalid_attribute',
        `No filter of this dashboard (and no variable of its SQL) is named "${name}"${hint ? `; did you mean "${hint}"?` : '.'} A value for an unknown name would filter nothing, so it is refused.`,
        { source: { pointer: `${pointer}/filters/${i}/variable_name` }, meta: { variable_name: name, ...(hint ? { did_you_mean: hint } : {}) } },
      ),
    );
  });
  return problems;
}

/** The variable names of the dashboard's filters. */
async function dashboardFilterNames(ctx: ServiceContext, dashboardId: string): Promise<string[]> {
  const rows = await ctx.db
    .select({ name: filters.variable_name })
    .from(dashboardFilters)
    .innerJoin(filters, eq(filters.id, dashboardFilters.filter_id))
    .where(and(eq(dashboardFilters.dashboard_id, dashboardId), eq(dashboardFilters.organization_id, ctx.principal.organizationId)));
  return rows.map((r) => r.name);
}

/** The variables the SQL texts refer to (through the organization's snippets too). */
async function sqlVariables(ctx: ServiceContext, sqls: readonly string[]): Promise<string[]> {
  if (!sqls.length) return [];
  const snippets = await organizationSnippets(ctx.db, ctx.principal.organizationId);
  return sqls.flatMap((sql) => readReferences(sql, snippets).variables);
}

export interface NameCheck {
  /** null: no dashboard (then only the SQL's variables and the built-ins are known). */
  dashboardId: string | null;
  parameters: InputParameters | null | undefined;
  pointer: ParametersPointer;
  /** The dashboard's filter names when the caller has them already. */
  filterNames?: readonly string[];
  /** SQL texts the call runs whose variables count besides the filters (a report's, an ad hoc execution's, a dropdown's). */
  sql?: readonly string[];
  /** The variables of every report of the dashboard count too (calls that run the whole dashboard). */
  allReports?: boolean;
}

/** The problems of a call's parameters (see the file's comment); empty when they are fine. */
export async function checkParameterNamesProblems(ctx: ServiceContext, check: NameCheck): Promise<ApiError[]> {
  const { parameters, pointer } = check;
  if (!parameters || (!parameters.timerange && !parameters.filters?.length)) return [];
  const names = check.filterNames ?? (check.dashboardId ? await dashboardFilterNames(ctx, check.dashboardId) : []);
  const known = new Set<string>([...names, ...BUILT_INS]);
  let problems = parameterProblems(parameters, known, pointer);
  if (!problems.some((p) => p.source?.pointer?.endsWith('/variable_name'))) return problems;
  // Some name is no filter: it may still be a variable of the SQL the call runs (an ad hoc filter).
  const sqls = [...(check.sql ?? [])];
  if (check.allReports && check.dashboardId) {
    const rows = await ctx.db
      .select({ sql: reports.sql_query })
      .from(reports)
      .where(and(eq(reports.dashboard_id, check.dashboardId), eq(reports.organization_id, ctx.principal.organizationId)));
    sqls.push(...rows.map((r) => r.sql));
  }
  for (const v of await sqlVariables(ctx, sqls)) known.add(v);
  problems = parameterProblems(parameters, known, pointer);
  return problems;
}

/** Throws one 422 listing every problem of the call's parameters. */
export async function checkParameterNames(ctx: ServiceContext, check: NameCheck): Promise<void> {
  throwAll(await checkParameterNamesProblems(ctx, check));
}
