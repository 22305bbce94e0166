import { and, asc, eq } from 'drizzle-orm';
import { touchDashboard } from '../dashboards/thumbnails.ts';
import { ApiError, notFound, verifyPassword, type InputParameters } from '@cairn/core';
import { sqlReferences } from '@cairn/core/sql/references';
import { organizations, reports } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { dashboardStatus } from '../dashboard-status/service.ts';
import { reportData } from '../reports/service.ts';
import { checkAccess, linkPrincipal, loadLink, type Caller, type DashboardRow, type LinkRow } from './access.ts';
import { currentLink, filterRows, type FilterRow } from './kept.ts';
import { noteOrganizationWrite, sharedAnswer } from '../../lib/read-cache.ts';
import { issueGrant } from './grant.ts';
import { FILTER_PREFIX, overlay, parametersFromQuery, type FilterDef, type UrlProblem } from './url-params.ts';
import { clientAddress, spendAttempt, type Budget } from '../../auth/failures.ts';
import { rateLimiterStub } from '../../durable/stubs.ts';
import { settingsOf } from '../../config.ts';

/** What every public verb starts from: the request's database and deployment, without a principal. */
export type PublicContext = Omit<ServiceContext, 'principal'>;

async function take(ctx: PublicContext, bucket: string, rate: number, burst: number, what: string) {
  const limiter = rateLimiterStub(ctx.env, bucket);
  const gate = await limiter.take(rate, burst);
  if (!gate.allowed) {
    throw new ApiError('rate_limited', `Too many ${what}; try again in ${gate.retryAfter} s.`, { meta: { retry_after: gate.retryAfter } });
  }
}

/** The link (kept.ts), checked for this caller, and a service context acting as the link's viewer. */
async function openFor(ctx: PublicContext, token: string, caller: Caller) {
  const kept = await currentLink(ctx.db, ctx.env, token);
  await checkAccess(ctx.env, kept.link, caller, kept.secret);
  const as: ServiceContext = { ...ctx, principal: linkPrincipal(kept.link) };
  return { ...kept, as };
}

/**
 * Signed values are the security boundary of per-viewer embedding (a typo in `f.customer_id` must not
 * show every customer): any problem with them — a name the dashboard has no filter for, a value that
 * does not read as its filter's type, a malformed range, or values on a link whose parameters are
 * off — refuses the call with 403 (meta.reason signed_parameters_invalid, meta.problems listing each).
 */
function refuseSignedProblems(problems: UrlProblem[]): void {
  if (!problems.length) return;
  const list = problems.map((p) => p.detail.replace(/; (its value was|it was) ignored\.$/, '.'));
  throw new ApiError(
    'forbidden',
    `The signed address sets filter values this dashboard cannot apply, so it is refused: ${list.join(' ')} Fix the values the embedding application signs.`,
    {
      meta: { reason: 'signed_parameters_invalid', problems: problems.map((p, i) => ({ parameter: p.parameter, detail: list[i] })) },
    },
  );
}

/**
 * The parameters a call runs with. Without parameters_enabled: none (the dashboard's defaults).
 * Otherwise the URL's values; with the filter bar, the viewer's own choice (`given`) instead. When a
 * sharing secret is required, the URL was signed, and its values win over anything the viewer sends;
 * a problem with a signed value refuses the call (refuseSignedProblems). On an unsigned URL a value
 * that cannot apply is left out and reported in `problems` (the viewer can change those values anyway).
 */
function effectiveParameters(link: LinkRow, defs: FilterDef[], caller: Caller, given: InputParameters | undefined) {
  const none = { parameters: {} as InputParameters, fixed: [] as string[], problems: [] as string[] };
  if (!link.parameters_enabled) {
    if (link.sharing_secret_required) {
      const signed = [...new URLSearchParams(caller.query).keys()].filter((k) => k.startsWith(FILTER_PREFIX));
      refuseSignedProblems(
        signed.map((parameter) => ({
          parameter,
          detail: `${parameter} cannot apply: this sharing link does not take parameters (parameters_enabled is off); its value was ignored.`,
        })),
      );
    }
    return none;
  }
  const fromUrl = parametersFromQuery(new URLSearchParams(caller.query), defs);
  if (link.sharing_secret_required) refuseSignedProblems(fromUrl.problems);
  const notices = fromUrl.problems.map((p) => p.detail);
  // A viewer's own choice names the dashboard's filters (and the built-ins) only: values for a variable no
  // filter defines would apply as an ad hoc text filter, which a link's viewer has no control for.
  const known = new Set([...defs.map((d) => d.variable_name), 'timerange', 'aggregation']);
  const chosen = given && { ...given, ...(given.filters ? { filters: given.filters.filter((f) => known.has(f?.variable_name)) } : {}) };
  const base = link.filter_bar_enabled && chosen ? chosen : fromUrl.parameters;
  if (!link.sharing_secret_required) return { parameters: base, fixed: [], problems: notices };
  return { parameters: overlay(base, fromUrl.parameters), fixed: fromUrl.variables, problems: notices };
}

function linkOptions(link: LinkRow) {
  return {
    name: link.name,
    description: link.description,
    toolbar_enabled: link.toolbar_enabled,
    parameters_enabled: link.parameters_enabled,
    filter_bar_enabled: link.filter_bar_enabled,
    refresh_enabled: link.refresh_enabled,
    data_download_enabled: link.data_download_enabled,
    unlimited_csv_export_enabled: link.unlimited_csv_export_enabled,
    sharing_secret_required: link.sharing_secret_required,
    password_protected: link.sharing_password_hash !== null,
    color_mode: link.color_mode,
  };
}

function dashboardView(d: DashboardRow, organizationTimeZone: string) {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    layout: d.layout,
    default_page_width: d.default_page_width,
    color_scheme: d.color_scheme,
    series_colors: d.series_colors,
    data_refresh_rate: d.data_refresh_rate,
    filters_configuration: d.filters_configuration,
    time_zone_config: d.time_zone_config,
    default_parameters: d.default_parameters,
    organization_time_zone: organizationTimeZone,
    updated_at: d.updated_at.toISOString(),
  };
}

type ReportRow = typeof reports.$inferSelect;

/** A report as a public viewer sees it: never its SQL. Downloads follow the stricter of link and report. */
function reportView(r: ReportRow, link: LinkRow) {
  const downloads = link.data_download_enabled && r.download_actions_enabled && r.data_download_enabled;
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    chart_configuration: r.chart_configuration,
    no_data_message: r.no_data_message,
    display_name_as_title: r.display_name_as_title,
    attribution: r.attribution,
    download_enabled: downloads,
    maximize_enabled: r.maximize_action_enabled,
  };
}

/** A filter as the public filter bar needs it; manual options only when the viewer may choose. */
function filterView(f: FilterRow, link: LinkRow, fixed: string[]) {
  return {
    id: f.id,
    variable_name: f.variable_name,
    display_name: f.display_name,
    control_type: f.control_type,
    value_type: f.value_type,
    default_values: f.default_values,
    required: f.required,
    parent_filter_id: f.parent_filter_id,
    allowed_aggregations: f.allowed_aggregations,
    dropdown_validate: f.dropdown_validate,
    dropdown_default_to_first: f.dropdown_default_to_first,
    query_options: f.sql_query !== null && f.sql_query.trim() !== '',
    relative_range_enabled: f.relative_range_enabled,
    before_range_enabled: f.before_range_enabled,
    after_range_enabled: f.after_range_enabled,
    from_to_range_enabled: f.from_to_range_enabled,
    fixed: fixed.includes(f.variable_name),
    ...(link.filter_bar_enabled && Array.isArray(f.values) ? { options: { values: f.values, value_names: f.value_names ?? [] } } : {}),
  };
}

/** The built-in variables (timerange, aggregation) the reports use, so the filter bar can offer them; never the SQL itself. */
function builtInsUsed(rows: ReportRow[], filterList: FilterRow[]) {
  const defined = new Set(filterList.map((f) => f.variable_name));
  const used = new Set<string>();
  for (const r of rows) {
    try {
      for (const v of sqlReferences(r.sql_query).variables) used.add(v);
    } catch {
      // A report whose SQL cannot be read contributes nothing; its tile shows the error.
    }
  }
  return { timerange: used.has('timerange') && !defined.has('timerange'), aggregation: used.has('aggregation') && !defined.has('aggregation') };
}

/**
 * POST /public/links/{token}: the link's options, its dashboard (reports without SQL, filters) and the
 * parameters in force, serialized. The answer depends on the link, its organization's content and the
 * query string only, so it is kept per link and query while the organization's version holds
 * (lib/read-cache.ts sharedAnswer): a crowd opening one link costs one build. The link's rules are
 * checked for every caller before (openFor).
 */
export async function openLink({ ctx, token, caller }: { ctx: PublicContext; token: string; caller: Caller }): Promise<Uint8Array<ArrayBuffer>> {
  const kept = await openFor(ctx, token, caller);
  // A view of the dashboard (thumbnails, D62): once an hour per dashboard at most, cheap in between.
  await touchDashboard(ctx.env, kept.link.organization_id, kept.dashboard.id);
  return sharedAnswer(ctx.env, kept.link.organization_id, kept.version, `link-open ${kept.link.id} ${caller.query}`, null, () => describeLink(kept, caller));
}

async function describeLink({ link, dashboard, filters: filterList, as }: Awaited<ReturnType<typeof openFor>>, caller: Caller) {
  const [reportRows, [org]] = await Promise.all([
    as.db
      .select()
      .from(reports)
      .where(and(eq(reports.dashboard_id, dashboard.id), eq(reports.organization_id, link.organization_id)))
      .orderBy(asc(reports.created_at), asc(reports.id)),
    as.db.select({ tz: organizations.time_zone }).from(organizations).where(eq(organizations.id, link.organization_id)).limit(1),
  ]);
  const { parameters, fixed, problems } = effectiveParameters(link, filterList, caller, undefined);
  return {
    link: linkOptions(link),
    dashboard: dashboardView(dashboard, org?.tz ?? 'UTC'),
    reports: reportRows.map((r) => reportView(r, link)),
    filters: filterList.map((f) => filterView(f, link, fixed)),
    built_ins: builtInsUsed(reportRows, filterList),
    parameters,
    fixed_variables: fixed,
    problems,
  };
}

/** What an anonymous viewer reads instead of a report's (or filter's) own error text, which may quote the database. */
export const PUBLIC_REPORT_ERROR = "This report could not be run. The dashboard's owner can see the details.";

/**
 * A status answer as a link's viewer sees it: errors keep their code but never their text (database
 * messages name tables, columns and values), except a missing required filter, which names the
 * filters the viewer is asked to fill in. Signed-in callers of POST /dashboards/{id}/status see the text.
 * The print view of scheduled PDFs (export-jobs/render-routes.ts) answers the same way: its file goes to
 * the schedule's recipients, who may be outside the organization.
 */
export function forViewer<
  T extends {
    reports: { error?: { code: string; message: string } }[];
    filters: { error?: { code: string; message: string } }[];
    data_keys: { error?: { code: string; message: string } }[];
  },
>(status: T): T {
  const hide = <I extends { error?: { code: string; message: string } }>(item: I): I =>
    item.error && item.error.code !== 'required_filter_missing' ? { ...item, error: { code: item.error.code, message: PUBLIC_REPORT_ERROR } } : item;
  return { ...status, reports: status.reports.map(hide), filters: status.filters.map(hide), data_keys: status.data_keys.map(hide) };
}

/**
 * POST /public/links/{token}/status: the dashboard status for the link's viewer (see POST
 * /dashboards/{id}/status), serialized. Every viewer of a link with the same parameters in force gets
 * the same answer, so it is kept per link and parameters for POLL_REUSE_MS (as keyed polls are), and a
 * burst of first polls waits for the one that starts the executions. refresh_data is never answered
 * from memory, and drops what was kept for the organization.
 */
export async function linkStatus({
  ctx,
  token,
  caller,
  input: body,
}: {
  ctx: PublicContext;
  token: string;
  caller: Caller;
  input: { parameters?: InputParameters; refresh_data?: boolean };
}): Promise<Uint8Array<ArrayBuffer>> {
  const { link, dashboard, filters: filterList, as, version } = await openFor(ctx, token, caller);
  if (body.refresh_data) {
    if (!link.refresh_enabled) {
      throw new ApiError('forbidden', 'Refreshing is switched off for this sharing link (refresh_enabled).', { source: { pointer: '/refresh_data' } });
    }
    // Per address; callers without one (not through the edge) share the link's own bucket: they lose refreshes, nothing else.
    await take(ctx, `link-refresh:${link.id}:${clientAddress(caller.ip) ?? 'no-address'}`, 1 / 10, 3, 'refreshes');
  }
  const { parameters } = effectiveParameters(link, filterList, caller, body.parameters);
  const build = async () => forViewer(await dashboardStatus({ ctx: as, id: dashboard.id, input: { parameters, refresh_data: body.refresh_data ?? false } }));
  if (body.refresh_data) {
    try {
      return await sharedAnswer(ctx.env, link.organization_id, null, '', null, build);
    } finally {
      noteOrganizationWrite(link.organization_id);
    }
  }
  const reuseMs = settingsOf(ctx.env).pollReuseMs;
  return sharedAnswer(ctx.env, link.organization_id, version, `link-status ${link.id} ${JSON.stringify(parameters)}`, reuseMs, build);
}

/** POST /public/links/{token}/reports/{id}/data: a CSV or XLSX download of one report, when link and report allow it. */
export async function linkReportData({
  ctx,
  token,
  id: reportId,
  caller,
  input: body,
}: {
  ctx: PublicContext;
  token: string;
  id: string;
  caller: Caller;
  input: { parameters?: InputParameters; data_format: 'csv' | 'xlsx' };
}) {
  const { link, dashboard, filters: filterList, as } = await openFor(ctx, token, caller);
  const [report] = await as.db
    .select()
    .from(reports)
    .where(and(eq(reports.id, reportId), eq(reports.dashboard_id, dashboard.id), eq(reports.organization_id, link.organization_id)))
    .limit(1);
  if (!report) throw notFound('report', reportId);
  if (!link.data_download_enabled) {
    throw new ApiError('forbidden', 'Downloads are switched off for this sharing link (data_download_enabled).');
  }
  if (!report.download_actions_enabled || !report.data_download_enabled) {
    throw new ApiError('forbidden', 'Downloads are switched off for this report.');
  }
  const { parameters } = effectiveParameters(link, filterList, caller, body.parameters);
  return reportData({ ctx: as, id: report.id, parameters, format: body.data_format, filterRules: false }).catch((err) => {
    // The database's text stays with the dashboard's owner (see forViewer).
    if (err instanceof ApiError && (err.code === 'query_error' || err.meta?.execution_id !== undefined)) {
      throw new ApiError(err.code, PUBLIC_REPORT_ERROR, { meta: { report_id: report.id } });
    }
    throw err;
  });
}

/** Wrong passwords per link and address: 10, then one per 30 s. */
const LINK_ADDRESS_BUDGET = { rate: 1 / 30, burst: 10 };
/** Wrong passwords per link from all addresses together: 100 a day. */
const LINK_DAILY_FAILURES = 100;
const LINK_BUDGET = { rate: LINK_DAILY_FAILURES / 86_400, burst: LINK_DAILY_FAILURES };

/**
 * POST /public/links/{token}/password: checks the password (against the stored PBKDF2 hash) and hands
 * out a grant for GRANT_HOURS. Guessing is slowed per link and address (10 tries, then one per 30 s)
 * and bounded per link (100 failures a day from all addresses together, so many addresses do not
 * multiply the attempts); only wrong passwords count. A caller without an address has only the
 * link's budget (auth/failures.ts). The allow-list and the signature are checked first, so nobody
 * outside them can even try.
 */
export async function unlockLink({ ctx, token, caller, password }: { ctx: PublicContext; token: string; caller: Caller; password: string }) {
  const { link } = await loadLink(ctx.db, token, ctx.env);
  if (!link.sharing_password_hash) {
    throw new ApiError('invalid_state', 'This sharing link has no password.', { source: { pointer: '/password' } });
  }
  // Everything but the password: checked with a grant that cannot be valid; signed values that cannot apply refuse here too.
  await checkAccess(ctx.env, { ...link, sharing_password_hash: null }, caller);
  if (link.sharing_secret_required) effectiveParameters(link, await filterRows(ctx.db, link.organization_id, link.dashboard_id), caller, undefined);
  const address = clientAddress(caller.ip);
  const budgets: Budget[] = [{ bucket: `link-password:${link.id}`, ...LINK_BUDGET }];
  if (address) budgets.push({ bucket: `link-password:${link.id}:${address}`, ...LINK_ADDRESS_BUDGET });
  const spent = await spendAttempt(ctx.env.RATE_LIMITER, budgets, 'password attempts');
  if (!(await verifyPassword(password, link.sharing_password_hash))) {
    throw new ApiError('unauthorized', 'The password is not correct.', { source: { pointer: '/password' }, meta: { reason: 'wrong_password' } });
  }
  await spent.refund();
  return issueGrant(ctx.env.SECRET_KEY, link.id, link.sharing_password_hash);
}
