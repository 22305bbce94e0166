import type { Env } from '../env.ts';
import { poolStatement } from '../lib/db.ts';
import { serverIdentity, type OwnQuery, type ServerIdentity, type TargetPolicy } from './connectors/target-guard.ts';
import { settingsOf } from '../config.ts';

export type { TargetPolicy };

let own: Promise<ServerIdentity> | null = null;

/**
 * The policy of this worker: the operator's setting and Cairn's own database, whose identity is asked
 * once per isolate through the caller's own client (a failed ask is asked again next time).
 */
export function targetPolicy(env: Env, query: OwnQuery = poolQuery(env)): TargetPolicy {
  const port = Number(env.HYPERDRIVE?.port);
  return {
    blockPrivate: settingsOf(env).blockPrivateNetworks,
    ownClient: env.HYPERDRIVE?.host && port ? { host: env.HYPERDRIVE.host, port } : null,
    ownIdentity: () =>
      (own ??= serverIdentity(query).catch((err) => {
        own = null;
        throw err;
      })),
  };
}

/** A statement through the DbPool objects (lib/db.ts), for callers without a client of their own. */
function poolQuery(env: Env): OwnQuery {
  const run = poolStatement(env);
  return (text) => run(text);
}
