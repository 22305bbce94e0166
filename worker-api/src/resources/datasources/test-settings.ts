import { and, count, eq } from 'drizzle-orm';
import { ORGANIZATION } from '@cairn/core';
import { datasourceAgentLinks, datasources } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import type { ResourceBody } from '../../lib/resource-body.ts';
import { requirePermission } from '../../auth/principal.ts';
import { audit } from '../../lib/audit.ts';
import { connectorEnv, connectorFor, type DatasourceConfig } from '../../engine/connectors.ts';
import { answerWithin } from '../../engine/connectors/errors.ts';
import { datasourceProblems, throwProblems } from './rules.ts';
import type { datasourceBody } from './schema.ts';
import { columnsOf, findDatasource, stateOf, withDefaults } from './service.ts';
import { checkTargets } from './targets.ts';

type Body = ResourceBody<typeof datasourceBody.attributes.shape>;

/** How long a connection test may take before the answer is "no answer" (the form waits no longer). */
export const TEST_CONNECTION_MS = 10_000;

/**
 * The connector's test, bounded by TEST_CONNECTION_MS: a peer that never answers gives a plain
 * error (not a hung request) — the connector's own bound is longer (engine/connectors/errors.ts).
 */
export async function boundedTest(config: DatasourceConfig, ctx: ServiceContext) {
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
  const sent = await columnsOf(ctx, body.attributes);
  if (id) {
    requirePermission(ctx.principal, 'manage_datasources', { type: 'datasources', id });
    const row = await findDatasource(ctx, id);
    const base = { ...row, ...sent };
    merged = { ...base, ...withDefaults(base, false, sent) };
    const agents = body.relationships.agents as string[] | undefined;
    agentCount = agents ? agents.length
      : (await ctx.db.select({ n: count() }).from(datasourceAgentLinks)
        .where(and(eq(datasourceAgentLinks.datasource_id, id), eq(datasourceAgentLinks.organization_id, ctx.principal.organizationId))))[0]?.n ?? 0;
  } else {
    requirePermission(ctx.principal, 'manage_datasources', ORGANIZATION);
    merged = { name: 'New datasource', ...sent, ...withDefaults(sent, true, sent) };
    agentCount = ((body.relationships.agents as string[] | undefined) ?? []).length;
  }
  throwProblems(datasourceProblems(stateOf(merged, agentCount), body.attributes, 'agents' in body.relationships));
  await checkTargets(ctx, merged);
  const config = {
    name: merged.name ?? 'New datasource', database_type: merged.database_type!, connection_mode: merged.connection_mode!,
    is_sample: merged.is_sample ?? false, enabled: true, host: merged.host ?? null, port: merged.port ?? null,
    username: merged.username ?? null, password_encrypted: merged.password_encrypted ?? null, database: merged.database ?? null,
    require_ssl: merged.require_ssl ?? false, verify_ssl: merged.verify_ssl ?? false, default_schema_name: merged.default_schema_name ?? null,
  } satisfies DatasourceConfig;
  const result = await boundedTest(config, ctx);
  await audit(ctx, 'test_connection', 'datasource', id, { status: result.status, unsaved: true });
  return { status: result.status, error_message: result.error_message };
}
