import { ApiError } from '@cairn/core';
import type { datasources } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { OWN_DATABASE_MESSAGE, resolvedRefusal, sameAddress } from '../../engine/connectors/target-guard.ts';
import { targetPolicy } from '../../engine/target-policy.ts';
import { defaultPort } from './validate.ts';

type Values = Partial<typeof datasources.$inferInsert>;

/** The attributes that decide where a datasource connects; an update that sends none of them is not checked again. */
const WHERE = ['database_type', 'connection_mode', 'host', 'port', 'database', 'username', 'ssh_tunnel_host', 'require_ssl'];
const PG_FAMILY = new Set(['postgres', 'redshift', 'cratedb']);

/**
 * Create/update: refuses, without connecting to the datasource, what is plainly not allowed
 * (engine/connectors/target-guard.ts): Cairn's own metadata database at an address that is its
 * server's, and, under BLOCK_PRIVATE_NETWORKS, hosts and SSH tunnel hosts that are (or resolve to)
 * non-public addresses. Agents connect from their own network and are not checked; through an SSH
 * tunnel the database host is the tunnel server's business, so only the tunnel host is. Aliases that
 * only the server can tell apart (a DNS name for the same machine) are refused when a connection is
 * made (test_connection, every run).
 */
export async function checkTargets(ctx: ServiceContext, state: Values, sent?: Record<string, unknown>): Promise<void> {
  if (sent && !WHERE.some((k) => k in sent)) return;
  if (state.connection_mode === 'agent') return;
  const policy = targetPolicy(ctx.env);
  const problems: ApiError[] = [];
  const refuse = (name: string, detail: string, refused: string) =>
    problems.push(new ApiError('invalid_attribute', detail, { source: { pointer: `/data/attributes/${name}` }, meta: { refused } }));

  if (policy.blockPrivate) {
    const hosts: [string, string | null | undefined][] = [['ssh_tunnel_host', state.connection_mode === 'ssh_tunnel' ? state.ssh_tunnel_host : null]];
    if (state.connection_mode === 'direct') hosts.unshift(['host', state.host]);
    for (const [name, host] of hosts) {
      const why = host ? await resolvedRefusal(host, policy.resolve) : null;
      if (why) refuse(name, why, 'private_network');
    }
  }
  if (state.connection_mode === 'direct' && state.host && PG_FAMILY.has(state.database_type ?? '')) {
    const port = state.port ?? defaultPort(state.database_type!, !!state.require_ssl) ?? 5432;
    // Without a database name Postgres connects to the database named like the user.
    const database = state.database || state.username || '';
    if (sameAddress({ host: state.host, port, database }, await policy.ownIdentity(), policy.ownClient)) {
      refuse('database', OWN_DATABASE_MESSAGE, 'metadata_database');
    }
  }
  if (problems.length) {
    const [first, ...more] = problems;
    throw new ApiError(first!.code, first!.message, { source: first!.source, meta: first!.meta, more });
  }
}
