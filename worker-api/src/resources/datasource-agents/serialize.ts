import type { datasourceAgents } from '@cairn/db';
import { resource, toMany } from '../../lib/jsonapi.ts';

export type AgentRow = typeof datasourceAgents.$inferSelect;

/** An agent resource; `secretKey` only in the answer of the create call (the one time it exists in clear). */
export function serializeAgent(baseUrl: string, a: AgentRow, datasourceIds: string[], secretKey?: string) {
  return resource(
    baseUrl,
    'datasource_agents',
    a.id,
    {
      agent_id: a.agent_id,
      name: a.name,
      version: a.version,
      address: a.address,
      connected: a.connected,
      active_queries: a.active_queries,
      enabled: a.enabled,
      ...(secretKey ? { secret_key: secretKey } : {}),
      created_at: a.created_at.toISOString(),
      updated_at: a.updated_at.toISOString(),
    },
    { datasources: toMany('datasources', datasourceIds) },
  );
}
