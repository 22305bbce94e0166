import type { Context } from 'hono';
import { eq } from 'drizzle-orm';
import { ApiError, sha256Hex, timingSafeEqual } from '@cairn/core';
import { datasourceAgents } from '@cairn/db';
import type { AppEnv } from '../../env.ts';
import { errorResponse } from '../../lib/errors.ts';
import { hubOf } from '../../engine/connectors/agent.ts';

const AUTH = /^Agent\s+([A-Za-z0-9]{1,64}):(\S{1,200})$/;

/**
 * GET /agent/connect: the WebSocket of a running agent (agent/). Not an API-key route and not in the
 * OpenAPI document: the agent presents `Authorization: Agent <agent_id>:<secret_key>`, checked here
 * against the stored hash, and the upgrade is handed to the agent's Durable Object (durable/agent-hub.ts).
 * A wrong id or secret is a 401, a disabled agent a 403: the agent prints the message and exits.
 */
export async function connectAgent(c: Context<AppEnv>): Promise<Response> {
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
    return errorResponse(c, new ApiError('bad_request', "This is the endpoint of Cairn's datasource agent: it expects a WebSocket upgrade."));
  }
  const m = AUTH.exec(c.req.header('authorization') ?? '');
  if (!m) return errorResponse(c, new ApiError('unauthorized', 'Send Authorization: Agent <agent_id>:<secret_key> (from POST /datasource_agents).'));
  const [, agentId, secret] = m;
  const [row] = await c.get('db').select().from(datasourceAgents).where(eq(datasourceAgents.agent_id, agentId!)).limit(1);
  if (!row || !timingSafeEqual(await sha256Hex(secret!), row.secret_hash)) {
    return errorResponse(
      c,
      new ApiError(
        'unauthorized',
        'The agent id or secret key is wrong, or the agent was deleted. Create an agent in Administration → Agents and start it with the command shown there.',
      ),
    );
  }
  if (!row.enabled) return errorResponse(c, new ApiError('forbidden', `Agent "${row.name}" is disabled; enable it in Administration → Agents first.`));
  const headers = new Headers(c.req.raw.headers);
  headers.delete('authorization');
  headers.set('x-cairn-agent-row', row.id);
  headers.set('x-cairn-agent-name', row.name);
  const ip = c.req.header('cf-connecting-ip');
  if (ip) headers.set('x-cairn-agent-address', ip);
  else headers.delete('x-cairn-agent-address');
  const res = await hubOf(c.env.AGENT_HUB, row.id).fetch(new Request(c.req.raw.url, { method: 'GET', headers }));
  // A fresh response: the object's has immutable headers, which the app's middleware adds to.
  return res.webSocket ? new Response(null, { status: 101, webSocket: res.webSocket }) : new Response(res.body, res);
}

/** Closes a disabled or deleted agent's connection (it exits instead of reconnecting). */
export async function refuseAgent(env: AppEnv['Bindings'], id: string, reason: string): Promise<void> {
  await hubOf(env.AGENT_HUB, id)
    .refuse(reason)
    .catch((err) => console.error(`agent ${id}: closing its connection failed`, err));
}
