import { and, asc, count, eq, inArray } from 'drizzle-orm';
import { ApiError, newId, notFound, ORGANIZATION, randomString, sha256Hex } from '@cairn/core';
import { datasourceAgentLinks, datasourceAgents, datasources } from '@cairn/db';
import { pgErrorCode } from '@cairn/db/seed/audit';
import type { ServiceContext } from '../../lib/context.ts';
import type { ResourceBody } from '../../lib/resource-body.ts';
import { requirePermission } from '../../auth/principal.ts';
import { audit, changed } from '../../lib/audit.ts';
import { offsetOf, type ListQuery } from '../../lib/jsonapi.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';
import { showsCredentials, visibleDatasources } from '../../lib/datasource-access.ts';
import { agentsOf, datasourcesOf } from '../datasources/links.ts';
import { serializeDatasource } from '../datasources/serialize.ts';
import type { agentBody } from './schema.ts';
import { serializeAgent, type AgentRow } from './serialize.ts';
import { refuseAgent } from './connect.ts';

type Body = ResourceBody<typeof agentBody.attributes.shape>;
type Page = ListQuery;

/** filter[name] and sort of GET /datasource_agents. */
export const AGENT_LIST: ListSpec = {
  name: [datasourceAgents.name],
  sorts: { name: datasourceAgents.name, created_at: datasourceAgents.created_at, updated_at: datasourceAgents.updated_at },
  order: [asc(datasourceAgents.name)],
  id: datasourceAgents.id,
};

const inOrg = (ctx: ServiceContext, id: string) => and(eq(datasourceAgents.id, id), eq(datasourceAgents.organization_id, ctx.principal.organizationId));

async function findAgent(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db.select().from(datasourceAgents).where(inOrg(ctx, id)).limit(1);
  if (!row) throw notFound('datasource agent', id);
  return row;
}

async function serializeAgents(ctx: ServiceContext, rows: AgentRow[], include: Set<string>) {
  const links = await datasourcesOf(
    ctx,
    rows.map((r) => r.id),
  );
  const data = rows.map((a) => serializeAgent(ctx.baseUrl, a, links.get(a.id)!));
  let included: ReturnType<typeof serializeDatasource>[] = [];
  if (include.has('datasources')) {
    const ids = [...new Set([...links.values()].flat())];
    if (ids.length) {
      const ds = await ctx.db
        .select()
        .from(datasources)
        .where(and(inArray(datasources.id, ids), visibleDatasources(ctx.principal)))
        .orderBy(asc(datasources.name), asc(datasources.id));
      const agents = await agentsOf(
        ctx,
        ds.map((d) => d.id),
      );
      included = ds.map((d) => serializeDatasource(ctx.baseUrl, d, agents.get(d.id)!, showsCredentials(ctx.principal, d.id)));
    }
  }
  return { data, included };
}

export async function listAgents({ ctx, page, include }: { ctx: ServiceContext; page: Page; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_datasources');
  const where = and(eq(datasourceAgents.organization_id, ctx.principal.organizationId), nameFilter(AGENT_LIST, page));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(datasourceAgents)
      .where(where)
      .orderBy(...listOrder(AGENT_LIST, page))
      .limit(page.size)
      .offset(offsetOf(page)),
    ctx.db.select({ n: count() }).from(datasourceAgents).where(where),
  ]);
  return { ...(await serializeAgents(ctx, rows, include)), total: total?.n ?? 0 };
}

export async function getAgent({ ctx, id, include }: { ctx: ServiceContext; id: string; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_datasources');
  const res = await serializeAgents(ctx, [await findAgent(ctx, id)], include);
  return { data: res.data[0]!, included: res.included };
}

/**
 * Agents serve any datasource of the organization: creating, changing and deleting them needs
 * unrestricted Manage Datasources. Creates an agent with a fresh public agent id and secret key; the
 * key is in this answer only.
 */
export async function createAgent({ ctx, input: body }: { ctx: ServiceContext; input: Body }) {
  requirePermission(ctx.principal, 'manage_datasources', ORGANIZATION);
  const secretKey = randomString(48);
  const [row] = await ctx.db
    .insert(datasourceAgents)
    .values({
      id: newId('datasource_agent'),
      organization_id: ctx.principal.organizationId,
      agent_id: randomString(24),
      name: body.attributes.name!,
      enabled: body.attributes.enabled ?? true,
      // 48 random base-62 characters (about 285 bits): a fast hash is enough, as for API keys.
      secret_hash: await sha256Hex(secretKey),
    })
    .returning();
  await audit(ctx, 'create', 'datasource_agents', row!.id, changed(body.attributes));
  return { data: serializeAgent(ctx.baseUrl, row!, [], secretKey) };
}

export async function updateAgent({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: Body }) {
  requirePermission(ctx.principal, 'manage_datasources', ORGANIZATION);
  await findAgent(ctx, id);
  // Only the attributes sent are written, so concurrent updates of different fields both survive.
  await ctx.db
    .update(datasourceAgents)
    .set({ ...body.attributes, updated_at: new Date() })
    .where(inOrg(ctx, id));
  await audit(ctx, 'update', 'datasource_agents', id, changed(body.attributes));
  if (body.attributes.enabled === false) await refuseAgent(ctx.env, id, 'The agent was disabled in Cairn.');
  return getAgent({ ctx, id, include: new Set() });
}

export async function deleteAgent({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requirePermission(ctx.principal, 'manage_datasources', ORGANIZATION);
  const agent = await findAgent(ctx, id);
  const [user] = await ctx.db
    .select({ id: datasources.id, name: datasources.name })
    .from(datasourceAgentLinks)
    .innerJoin(datasources, eq(datasources.id, datasourceAgentLinks.datasource_id))
    .where(and(eq(datasourceAgentLinks.agent_id, id), visibleDatasources(ctx.principal)))
    .orderBy(asc(datasources.name))
    .limit(1);
  const [any] = user
    ? [user]
    : await ctx.db.select({ id: datasourceAgentLinks.datasource_id }).from(datasourceAgentLinks).where(eq(datasourceAgentLinks.agent_id, id)).limit(1);
  if (any) {
    const who = user ? `datasource "${user.name}" (${user.id})` : 'a datasource';
    throw new ApiError('invalid_state', `Agent "${agent.name}" is used by ${who}; connect it another way or delete it first.`);
  }
  try {
    await ctx.db.delete(datasourceAgents).where(inOrg(ctx, id));
  } catch (err) {
    if (pgErrorCode(err) === '23503') throw new ApiError('invalid_state', `Agent "${agent.name}" is used by a datasource.`);
    throw err;
  }
  await audit(ctx, 'delete', 'datasource_agents', id);
  await refuseAgent(ctx.env, id, 'The agent was deleted in Cairn.');
}
