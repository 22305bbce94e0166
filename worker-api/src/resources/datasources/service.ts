import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { ApiError, encryptSecret, newId, notFound, ORGANIZATION } from '@cairn/core';
import { datasourceAgentLinks, datasourceAgents, datasources, filters, organizations, reports, sqlAlerts } from '@cairn/db';
import { pgErrorCode, type Executor } from '@cairn/db/seed/audit';
import type { ServiceContext } from '../../lib/context.ts';
import type { ResourceBody } from '../../lib/resource-body.ts';
import { requirePermission, requirePermissionOn } from '../../auth/principal.ts';
import { audit, changed } from '../../lib/audit.ts';
import { withTransaction } from '../../lib/transaction.ts';
import { offsetOf, type ListQuery } from '../../lib/jsonapi.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';
import { serializeAgent } from '../datasource-agents/serialize.ts';
import { showsCredentials, visibleDatasources } from '../../lib/datasource-access.ts';
import { agentsOf, checkAgents, datasourcesOf } from './links.ts';
import { datasourceProblems, defaultPort, DEFAULT_SSH_PORT, throwProblems, type DatasourceState } from './validate.ts';
import type { datasourceBody } from './schema.ts';
import { serializeDatasource, type DatasourceRow } from './serialize.ts';
import { checkServiceKey } from './validate.ts';
import { checkTargets } from './targets.ts';

type Body = ResourceBody<typeof datasourceBody.attributes.shape>;
type Page = ListQuery;

/** filter[name] and sort of GET /datasources. */
export const DATASOURCE_LIST: ListSpec = {
  name: [datasources.name],
  sorts: { name: datasources.name, created_at: datasources.created_at, updated_at: datasources.updated_at },
  order: [asc(datasources.name)],
  id: datasources.id,
};
type Values = Partial<typeof datasources.$inferInsert>;

/** A datasource of the caller's organization that View Datasources reaches; otherwise 404. */
export async function findDatasource(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db
    .select()
    .from(datasources)
    .where(and(eq(datasources.id, id), visibleDatasources(ctx.principal)))
    .limit(1);
  if (!row) throw notFound('datasource', id);
  return row;
}

/** Data and included resources for datasource rows (credentials only where Manage Datasources reaches). */
async function serializeDatasources(ctx: ServiceContext, rows: DatasourceRow[], include: Set<string>) {
  const agents = await agentsOf(
    ctx,
    rows.map((r) => r.id),
  );
  const data = rows.map((d) => serializeDatasource(ctx.baseUrl, d, agents.get(d.id)!, showsCredentials(ctx.principal, d.id)));
  let included: ReturnType<typeof serializeAgent>[] = [];
  if (include.has('agents')) {
    const ids = [...new Set([...agents.values()].flat())];
    if (ids.length) {
      const found = await ctx.db
        .select()
        .from(datasourceAgents)
        .where(and(inArray(datasourceAgents.id, ids), eq(datasourceAgents.organization_id, ctx.principal.organizationId)))
        .orderBy(asc(datasourceAgents.name), asc(datasourceAgents.id));
      const links = await datasourcesOf(
        ctx,
        found.map((a) => a.id),
      );
      included = found.map((a) => serializeAgent(ctx.baseUrl, a, links.get(a.id)!));
    }
  }
  return { data, included };
}

export async function listDatasources({ ctx, page, include }: { ctx: ServiceContext; page: Page; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_datasources');
  const where = and(visibleDatasources(ctx.principal), nameFilter(DATASOURCE_LIST, page));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(datasources)
      .where(where)
      .orderBy(...listOrder(DATASOURCE_LIST, page))
      .limit(page.size)
      .offset(offsetOf(page)),
    ctx.db.select({ n: count() }).from(datasources).where(where),
  ]);
  return { ...(await serializeDatasources(ctx, rows, include)), total: total?.n ?? 0 };
}

export async function getDatasource({ ctx, id, include }: { ctx: ServiceContext; id: string; include: Set<string> }) {
  await requirePermissionOn(ctx.principal, 'view_datasources', { type: 'datasources', id }, () => findDatasource(ctx, id));
  const row = await findDatasource(ctx, id);
  const res = await serializeDatasources(ctx, [row], include);
  return { data: res.data[0]!, included: res.included };
}

/** Column values for the attributes sent: secrets sealed, dates parsed, defaults restored for nulls. */
export async function columnsOf(ctx: ServiceContext, a: Body['attributes']): Promise<Values> {
  const { password, bigquery_service_key, databricks_auth_expires_at, ...plain } = a;
  const v: Values = { ...plain };
  if (password !== undefined) v.password_encrypted = password === null ? null : await encryptSecret(password, ctx.env.SECRET_KEY);
  if (bigquery_service_key !== undefined) {
    v.bigquery_service_key_encrypted =
      bigquery_service_key === null ? null : await encryptSecret(checkServiceKey(bigquery_service_key).json!, ctx.env.SECRET_KEY);
  }
  if (databricks_auth_expires_at !== undefined)
    v.databricks_auth_expires_at = databricks_auth_expires_at === null ? null : new Date(databricks_auth_expires_at);
  return v;
}

export function stateOf(row: Values, agentCount: number): DatasourceState {
  return {
    database_type: row.database_type!,
    connection_mode: row.connection_mode!,
    host: row.host ?? null,
    port: row.port ?? null,
    username: row.username ?? null,
    password_set: !!row.password_encrypted,
    ssh_tunnel_host: row.ssh_tunnel_host ?? null,
    ssh_tunnel_user: row.ssh_tunnel_user ?? null,
    athena_s3_output_location: row.athena_s3_output_location ?? null,
    databricks_http_path: row.databricks_http_path ?? null,
    databricks_auth_mode: row.databricks_auth_mode ?? null,
    databricks_auth_expires_at: row.databricks_auth_expires_at ?? null,
    snowflake_identifier: row.snowflake_identifier ?? null,
    bigquery_service_key_set: !!row.bigquery_service_key_encrypted,
    agent_count: agentCount,
  };
}

/** Fills the defaults that depend on the merged state (ports, Databricks auth mode). */
export function withDefaults(merged: Values, creating: boolean, sent: Values): Values {
  const out: Values = {};
  const type = merged.database_type!;
  // A missing port on create, or a port set to null, takes the type's default.
  if (merged.port == null && (creating || 'port' in sent)) out.port = defaultPort(type, !!merged.require_ssl);
  if (merged.connection_mode === 'ssh_tunnel' && merged.ssh_tunnel_port == null) out.ssh_tunnel_port = DEFAULT_SSH_PORT;
  if (type === 'databricks' && !merged.databricks_auth_mode) out.databricks_auth_mode = 'pat';
  return out;
}

async function lockPlan(tx: Executor, organizationId: string) {
  // Serializes datasource creation per organization, so two concurrent creates cannot both pass the limit.
  const [org] = await tx.select({ limit: organizations.plan_datasources }).from(organizations).where(eq(organizations.id, organizationId)).for('update');
  const [used] = await tx
    .select({ n: count() })
    .from(datasources)
    .where(and(eq(datasources.organization_id, organizationId), eq(datasources.is_sample, false)));
  // No limit unless the operator set one (`npm run cairn -- org limits`).
  const limit = org?.limit ?? null;
  if (limit !== null && (used?.n ?? 0) >= limit) {
    throw new ApiError(
      'plan_limit',
      `This organization may have ${limit} datasources (the sample datasource does not count); delete one first (the server's operator sets the limit).`,
    );
  }
}

export async function createDatasource({ ctx, input: body }: { ctx: ServiceContext; input: Body }) {
  // Organization-wide: a key whose Manage Datasources is restricted to named resources cannot add others.
  requirePermission(ctx.principal, 'manage_datasources', ORGANIZATION);
  const id = newId('datasource');
  const org = ctx.principal.organizationId;
  const agentIds = (body.relationships.agents as string[] | undefined) ?? [];
  const sent = await columnsOf(ctx, body.attributes);
  const merged: Values = { ...sent, ...withDefaults(sent, true, sent) };
  throwProblems(datasourceProblems(stateOf(merged, agentIds.length), body.attributes, 'agents' in body.relationships));
  await checkTargets(ctx, merged);
  await withTransaction(ctx, async ({ tx, audit }) => {
    await checkAgents(tx, org, agentIds);
    await lockPlan(tx, org);
    await tx.insert(datasources).values({ ...merged, id, organization_id: org } as typeof datasources.$inferInsert);
    if (agentIds.length) await tx.insert(datasourceAgentLinks).values(agentIds.map((a) => ({ organization_id: org, datasource_id: id, agent_id: a })));
    await audit('create', 'datasources', id, changed(body.attributes, body.relationships));
  });
  return getDatasource({ ctx, id, include: new Set() });
}

export async function updateDatasource({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: Body }) {
  await requirePermissionOn(ctx.principal, 'manage_datasources', { type: 'datasources', id }, () => findDatasource(ctx, id));
  const org = ctx.principal.organizationId;
  const sent = await columnsOf(ctx, body.attributes);
  await withTransaction(ctx, async ({ tx, audit }) => {
    // The row is locked while the merged state is checked, so concurrent updates see each other.
    const [row] = await tx
      .select()
      .from(datasources)
      .where(and(eq(datasources.id, id), eq(datasources.organization_id, org)))
      .for('update');
    if (!row) throw notFound('datasource', id);
    if (row.is_sample) throw new ApiError('invalid_state', 'The Sample data datasource is built in and cannot be changed.');
    let agentIds = body.relationships.agents as string[] | undefined;
    const mode = sent.connection_mode ?? row.connection_mode;
    // Leaving agent mode drops the agent links (they would mean nothing).
    if (agentIds === undefined && mode !== 'agent' && row.connection_mode === 'agent') agentIds = [];
    if (agentIds) await checkAgents(tx, org, agentIds);
    const agentCount = agentIds
      ? agentIds.length
      : ((await tx.select({ n: count() }).from(datasourceAgentLinks).where(eq(datasourceAgentLinks.datasource_id, id)))[0]?.n ?? 0);
    const base: Values = { ...row, ...sent };
    const set: Values = { ...sent, ...withDefaults(base, false, sent) };
    throwProblems(datasourceProblems(stateOf({ ...row, ...set }, agentCount), body.attributes, 'agents' in body.relationships));
    await checkTargets(ctx, { ...row, ...set }, body.attributes);
    // Only the columns sent (and the defaults they imply) are written.
    await tx
      .update(datasources)
      .set({ ...set, updated_at: new Date() })
      .where(and(eq(datasources.id, id), eq(datasources.organization_id, org)));
    if (agentIds) {
      await tx.delete(datasourceAgentLinks).where(eq(datasourceAgentLinks.datasource_id, id));
      if (agentIds.length) await tx.insert(datasourceAgentLinks).values(agentIds.map((a) => ({ organization_id: org, datasource_id: id, agent_id: a })));
    }
    await audit('update', 'datasources', id, changed(body.attributes, body.relationships));
  });
  return getDatasource({ ctx, id, include: new Set() });
}

/** The first report, filter or SQL alert that uses the datasource, named for the error message. */
async function firstUser(ctx: ServiceContext, id: string): Promise<string | null> {
  const org = ctx.principal.organizationId;
  const [r] = await ctx.db
    .select({ id: reports.id, name: reports.name })
    .from(reports)
    .where(and(eq(reports.datasource_id, id), eq(reports.organization_id, org)))
    .orderBy(asc(reports.name))
    .limit(1);
  if (r) return `report "${r.name}" (${r.id})`;
  const [f] = await ctx.db
    .select({ id: filters.id, name: sql<string>`coalesce(${filters.display_name}, ${filters.variable_name})` })
    .from(filters)
    .where(and(eq(filters.datasource_id, id), eq(filters.organization_id, org)))
    .limit(1);
  if (f) return `filter "${f.name}" (${f.id})`;
  const [a] = await ctx.db
    .select({ id: sqlAlerts.id, name: sqlAlerts.name })
    .from(sqlAlerts)
    .where(and(eq(sqlAlerts.datasource_id, id), eq(sqlAlerts.organization_id, org)))
    .orderBy(asc(sqlAlerts.name))
    .limit(1);
  if (a) return `SQL alert "${a.name}" (${a.id})`;
  return null;
}

export async function deleteDatasource({ ctx, id }: { ctx: ServiceContext; id: string }) {
  await requirePermissionOn(ctx.principal, 'manage_datasources', { type: 'datasources', id }, () => findDatasource(ctx, id));
  const org = ctx.principal.organizationId;
  const [row] = await ctx.db
    .select()
    .from(datasources)
    .where(and(eq(datasources.id, id), eq(datasources.organization_id, org)))
    .limit(1);
  if (!row) throw notFound('datasource', id);
  if (row.is_sample) throw new ApiError('invalid_state', 'The Sample data datasource is built in and cannot be deleted.');
  const user = await firstUser(ctx, id);
  if (user) throw new ApiError('invalid_state', `Datasource "${row.name}" is used by ${user}; change or delete what uses it first.`);
  try {
    await ctx.db.delete(datasources).where(and(eq(datasources.id, id), eq(datasources.organization_id, org)));
  } catch (err) {
    // Something started using it between the check and the delete.
    if (pgErrorCode(err) === '23503') throw new ApiError('invalid_state', `Datasource "${row.name}" is in use by a report, filter or SQL alert.`);
    throw err;
  }
  await audit(ctx, 'delete', 'datasources', id);
}
