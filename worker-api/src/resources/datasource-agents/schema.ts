import { z } from '@hono/zod-openapi';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';

const attributes = z.object({
  name: z.string().trim().min(1).max(200),
  enabled: z.boolean().openapi({ description: 'A disabled agent is refused when it connects. Default true.' }),
});

/** Reported by the agent process itself, or set by Cairn. */
const READ_ONLY = ['agent_id', 'version', 'address', 'connected', 'active_queries', 'secret_key', 'created_at', 'updated_at'] as const;

export const agentBody = {
  type: 'datasource_agents',
  attributes,
  required: ['name'],
  readOnly: READ_ONLY,
} satisfies ResourceBodySpec<typeof attributes.shape>;

const ts = z.string().openapi({ format: 'date-time' });
const agentAttributes = {
  agent_id: z.string().openapi({ description: 'The public id the agent presents when it connects.' }),
  name: z.string(),
  version: z.string().nullable(),
  address: z.string().nullable(),
  connected: z.boolean(),
  active_queries: z.number().int(),
  enabled: z.boolean(),
  created_at: ts,
  updated_at: ts,
};

export const DatasourceAgent = resourceObjectSchema('DatasourceAgent', 'datasource_agents', z.object(agentAttributes), ['datasources']);

/** The create answer: the only time `secret_key` is shown. */
export const NewDatasourceAgent = resourceObjectSchema(
  'NewDatasourceAgent',
  'datasource_agents',
  z.object({
    ...agentAttributes,
    secret_key: z.string().openapi({ description: 'Shown once, in this answer; Cairn keeps only its hash. Configure the agent with agent_id and secret_key.' }),
  }),
  ['datasources'],
);

export const AGENT_INCLUDES = ['datasources'] as const;

/** The create answer's meta: where the new agent connects. */
export const agentServerMeta = z.object({
  agent_server: z.string().openapi({ description: "The URL to start the agent with: this region's public API base URL (cairn-agent --server)." }),
});
