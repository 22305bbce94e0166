/** What a request gives the connectors: its connector environment and the agents a datasource may run through. */
import type { ServiceContext } from '../lib/context.ts';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { datasourceAgents } from '@cairn/db';
import type { AgentRef, ConnectorEnv } from './connectors/index.ts';
import { targetPolicy } from './target-policy.ts';
import { sshKeyFromDb } from './ssh-key.ts';

/** The connector environment of a request: its secret key, the sample database, waitUntil. */
export function connectorEnv(ctx: ServiceContext): ConnectorEnv {
  return {
    secretKey: ctx.env.SECRET_KEY,
    sampleDb: ctx.env.SAMPLE_DB,
    closer: (close) => ctx.waitUntil(close()),
    policy: targetPolicy(ctx.env),
    agentHub: ctx.env.AGENT_HUB,
    sshKey: sshKeyFromDb(ctx.db, ctx.env.SECRET_KEY),
  };
}

/** The enabled agents among `ids` in the caller's organization, by name (what an agent datasource runs through). */
export async function agentRefs(ctx: ServiceContext, ids: string[]): Promise<AgentRef[]> {
  if (!ids.length) return [];
  return ctx.db
    .select({ id: datasourceAgents.id, name: datasourceAgents.name })
    .from(datasourceAgents)
    .where(and(inArray(datasourceAgents.id, ids), eq(datasourceAgents.organization_id, ctx.principal.organizationId), eq(datasourceAgents.enabled, true)))
    .orderBy(asc(datasourceAgents.name), asc(datasourceAgents.id));
}
