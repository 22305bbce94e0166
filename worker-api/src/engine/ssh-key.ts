import type postgres from 'postgres';
import { decryptSecret } from '@cairn/core';
import { newSealedSshKeyPair, organizationSshPrivateKey } from '@cairn/db/ssh-key';
import type { PooledDb } from '../lib/db.ts';
import { ConnectorError } from './connectors/errors.ts';

/**
 * Where the connectors get an organization's SSH private key (ssh_tunnel datasources, D51): read from
 * `organizations` (made there on first use) and unsealed with SECRET_KEY, when a tunnel is opened.
 */
export const sshKeyFromDb = (db: PooledDb, secretKey: string) => (organizationId: string) => organizationSshPrivateKey(db, organizationId, secretKey);

/**
 * The same through a postgres.js client (the datasource gate's runs and cancels), in plain SQL:
 * wrapping that client in drizzle would replace its type parsers for everyone who shares it.
 */
export const sshKeyFromSql =
  (sql: postgres.Sql, secretKey: string) =>
  async (organizationId: string): Promise<string> => {
    const read = async () =>
      (
        await sql<{ sealed: string | null }[]>`
    select ssh_private_key_encrypted as sealed from organizations where id = ${organizationId}`
      )[0]?.sealed ?? null;
    let sealed = await read();
    if (!sealed) {
      const made = await newSealedSshKeyPair(organizationId, secretKey);
      await sql`update organizations set ssh_public_key = ${made.publicKey}, ssh_private_key_encrypted = ${made.sealed}
      where id = ${organizationId} and ssh_public_key is null`;
      sealed = await read();
    }
    if (!sealed) throw new ConnectorError('connection_error', 'The organization of this datasource no longer exists.');
    return decryptSecret(sealed, secretKey);
  };
