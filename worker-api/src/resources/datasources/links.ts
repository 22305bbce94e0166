import { and, asc, eq, inArray } from 'drizzle-orm';
import { ApiError } from '@cairn/core';
import { datasourceAgentLinks, datasourceAgents, datasources } from '@cairn/db';
import type { Executor } from '@cairn/db/seed/audit';
import type { ServiceContext } from '../../lib/context.ts';
import { visibleDatasources } from '../../lib/datasource-access.ts';

type Reader = ServiceContext['db'] | Executor;

/** Agent ids per datasource (every agent of the organization is visible to datasource readers). */
export async function agentsOf(ctx: ServiceContext, datasourceIds: string[]) {
  const out = new Map<string, string[]>(datasourceIds.map((id) => [id, []]));
  if (!datasourceIds.length) return out;
  const rows = await ctx.db
    .select({ d: datasourceAgentLinks.datasource_id, a: datasourceAgentLinks.agent_id })
    .from(datasourceAgentLinks)
    .where(and(inArray(datasourceAgentLinks.datasource_id, datasourceIds), eq(datasourceAgentLinks.organization_id, ctx.principal.organizationId)))
    .orderBy(asc(datasourceAgentLinks.agent_id));
  for (const r of rows) out.get(r.d)!.push(r.a);
  return out;
}

/** Datasource ids per agent, limited to the datasources the caller may see. */
export async function datasourcesOf(ctx: ServiceContext, agentIds: string[]) {
  const out = new Map<string, string[]>(agentIds.map((id) => [id, []]));
  if (!agentIds.length) return out;
  const rows = await ctx.db
    .select({ a: datasourceAgentLinks.agent_id, d: datasourceAgentLinks.datasource_id })
    .from(datasourceAgentLinks)
    .innerJoin(datasources, eq(datasources.id, datasourceAgentLinks.datasource_id))
    .where(and(inArray(datasourceAgentLinks.agent_id, agentIds), visibleDatasources(ctx.principal)))
    .orderBy(asc(datasources.name), asc(datasources.id));
  for (const r of rows) out.get(r.a)!.push(r.d);
  return out;
}

/** Every id must be an agent of the organization (422 pointing at the first that is not). */
export async function checkAgents(db: Reader, organizationId: string, ids: string[]) {
  if (!ids.length) return;
  const found = await db
    .select({ id: datasourceAgents.id })
    .from(datasourceAgents)
    .where(and(inArray(datasourceAgents.id, ids), eq(datasourceAgents.organization_id, organizationId)));
  const have = new Set(found.map((r) => r.id));
  const missing = ids.findIndex((id) => !have.has(id));
  if (missing >= 0) {
    throw new ApiError('invalid_relationship', `No datasource agent with id "${ids[missing]}" exists in this organization.`, {
      source: { pointer: `/data/relationships/agents/data/${missing}/id` },
    });
  }
}
