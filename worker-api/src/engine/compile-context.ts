import { and, eq } from 'drizzle-orm';
import { resolveDashboardTimeZone, type InputParameters, type SnippetDefinition, type SqlContext } from '@cairn/core';
import { organizations, sqlSnippets, users, type dashboards } from '@cairn/db';
import type { ServiceContext } from '../lib/context.ts';

type DashboardRow = typeof dashboards.$inferSelect;

/** What the compiler needs beyond the SQL and the filters: snippets, time zone and the built-in snippets' values. */
export interface CompileExtras {
  snippets: SnippetDefinition[];
  timeZone: string | null;
  aggregationOptions: string[] | null;
  context: SqlContext;
}

/** The caller as the built-in snippets see them: a signed-in user's e-mail, names and role; NULL for API keys. */
export async function principalContext(ctx: ServiceContext): Promise<Pick<SqlContext, 'userEmail' | 'userFirstname' | 'userLastname' | 'userRole'>> {
  if (ctx.principal.kind !== 'user') return {};
  const [u] = await ctx.db
    .select({ email: users.email, firstname: users.firstname, lastname: users.lastname, role: users.role })
    .from(users)
    .where(eq(users.id, ctx.principal.userId))
    .limit(1);
  return u ? { userEmail: u.email, userFirstname: u.firstname, userLastname: u.lastname, userRole: u.role } : {};
}

async function organizationSnippets(ctx: ServiceContext): Promise<SnippetDefinition[]> {
  const rows = await ctx.db
    .select({ name: sqlSnippets.name, text: sqlSnippets.text, params: sqlSnippets.params })
    .from(sqlSnippets)
    .where(eq(sqlSnippets.organization_id, ctx.principal.organizationId));
  return rows;
}

/**
 * Everything the compiler needs for a query shown on `dashboard` with `parameters`. Without a
 * dashboard (ad hoc runs, alerts) the requested `tz` applies, else the organization's time zone.
 */
export async function compileExtras(ctx: ServiceContext, dashboard: DashboardRow | null, parameters: InputParameters): Promise<CompileExtras> {
  const [snippets, who, [org]] = await Promise.all([
    organizationSnippets(ctx),
    principalContext(ctx),
    ctx.db
      .select({ tz: organizations.time_zone })
      .from(organizations)
      .where(and(eq(organizations.id, ctx.principal.organizationId)))
      .limit(1),
  ]);
  const timeZone = resolveDashboardTimeZone({
    config: dashboard?.time_zone_config ?? { type: 'input' },
    requested: parameters.tz ?? null,
    organizationTimeZone: org?.tz ?? 'UTC',
  });
  return {
    snippets,
    timeZone,
    aggregationOptions: dashboard?.filters_configuration?.aggregation_options ?? null,
    context: { ...who, dashboardName: dashboard?.name ?? null, dashboardId: dashboard?.id ?? null },
  };
}
