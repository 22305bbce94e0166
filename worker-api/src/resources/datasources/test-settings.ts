import { and, eq } from 'drizzle-orm';
import { ORGANIZATION } from '@cairn/core';
import { datasourceAgentLinks, datasources } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import type { ResourceBody } from '../../lib/resource-body.ts';
import { requirePermission, requirePermissionOn } from '../../auth/principal.ts';
import { audit } from '../../lib/audit.ts';
import { agentRefs, connectorEnv } from '../../engine/connector-env.ts';
import { connectorFor, type AgentRef, type DatasourceConfig } from '../../engine/connectors/index.ts';
import { answerWithin } from '../../engine/connectors/errors.ts';
import { datasourceProblems, throwProblems } from './validate.ts';
import type { datasourceBody } from './schema.ts';
import { columnsOf, findDatasource, stateOf, withDefaults } from './service.ts';
import { checkTargets } from './targets.ts';

type Body = ResourceBody<typeof datasourceBody.attributes.shape>;

/** How long a connection test may take before the answer is "no answer" (the form waits no longer). */
const TEST_CONNECTION_MS = 10_000;

/**
 * The connector's test, bounded by TEST_CONNECTION_MS: a peer that never answers gives a plain
 * error (not a hung request) — the connector's own bound is longer (engine/connectors/errors.ts).
 */
export async function boundedTest(config: DatasourceConfig & { agents?: AgentRef[] }, ctx: ServiceContext) {
  const connector = await connectorFor({ ...config, enabled: true }, connectorEnv(ctx));
  const label = `${config.host ?? 'the database'}${config.port ? `:${config.port}` : ''}`;
  try {
    return await answerWithin(connector.testConnection(), TEST_CONNECTION_MS, label, () => {});
  } catch (err) {
    if ((err as { kind?: string }).kind === 'connection_error') {
      return { status: 'error' as const, error_message: (err as Error).message, server_version: null };
    }
    throw err;
  }
}

/**
 * POST /datasources/test_connection: tests settings that are not saved — a new datasource's form, or
 * an existing one's edits (`data.id`: the stored row with the sent attributes on top, so a password
 * that is not retyped is the stored one). The same rules as create/update apply first (422 for what
 * a save would refuse), then the same connector as a run. Nothing is written.
 */
export async function testSettings(ctx: ServiceContext, body: Body, id: string | null) {
  let merged: Partial<typeof datasources.$inferInsert>;
  let agentCount: number;
  let agentIds: string[];
  const sent = await columnsOf(ctx, body.attributes);
  if (id) {
    await requirePermissionOn(ctx.principal, 'manage_datasources', { type: 'datasources', id }, () => findDatasource(ctx, id));
    const row = await findDatasource(ctx, id);
    const base = { ...row, ...sent };
    merged = { ...base, ...withDefaults(base, false, sent) };
    const agents = body.relationships.agents as string[] | undefined;
    agentIds =
      agents ??
      (
        await ctx.db
          .select({ id: datasourceAgentLinks.agent_id })
          .from(datasourceAgentLinks)
          .where(and(eq(datasourceAgentLinks.datasource_id, id), eq(datasourceAgentLinks.organization_id, ctx.principal.organizationId)))
      ).map((r) => r.id);
    agentCount = agentIds.length;
  } else {
    requirePermission(ctx.principal, 'manage_datasources', ORGANIZATION);
    merged = { name: 'New datasource', ...sent, ...withDefaults(sent, true, sent) };
    agentIds = (body.relationships.agents as string[] | undefined) ?? [];
    agentCount = agentIds.length;
  }
  throwProblems(datasourceProblems(stateOf(merged, agentCount), body.attributes, 'agents' in body.relationships));
  await checkTargets(ctx, merged);
  const config = {
    name: merged.name ?? 'New datasource',
    database_type: merged.database_type!,
    connection_mode: merged.connection_mode!,
    is_sample: merged.is_sample ?? false,
    enabled: true,
    host: merged.host ?? null,
    port: merged.port ?? null,
    username: merged.username ?? null,
    password_encrypted: merged.password_encrypted ?? null,
    database: merged.database ?? null,
    require_ssl: merged.require_ssl ?? false,
    verify_ssl: merged.verify_ssl ?? false,
    default_schema_name: merged.default_schema_name ?? null,
    snowflake_identifier: merged.snowflake_identifier ?? null,
    snowflake_region: merged.snowflake_region ?? null,
    snowflake_warehouse: merged.snowflake_warehouse ?? null,
    bigquery_service_key_encrypted: merged.bigquery_service_key_encrypted ?? null,
    databricks_http_path: merged.databricks_http_path ?? null,
    databricks_auth_mode: merged.databricks_auth_mode ?? null,
    databricks_auth_expires_at: merged.databricks_auth_expires_at ?? null,
    athena_region: merged.athena_region ?? null,
    athena_workgroup: merged.athena_workgroup ?? null,
    athena_s3_output_location: merged.athena_s3_output_location ?? null,
    organization_id: ctx.principal.organizationId,
    ssh_tunnel_host: merged.ssh_tunnel_host ?? null,
    ssh_tunnel_port: merged.ssh_tunnel_port ?? null,
    ssh_tunnel_user: merged.ssh_tunnel_user ?? null,
  } satisfies DatasourceConfig;
  const agents = config.connection_mode === 'agent' ? await agentRefs(ctx, agentIds) : undefined;
  const result = await boundedTest({ ...config, agents }, ctx);
  await audit(ctx, 'test_connection', 'datasources', id, { status: result.status, unsaved: true });
  return { status: result.status, error_message: result.error_message };
}
