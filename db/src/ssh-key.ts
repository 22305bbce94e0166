/**
 * An organization's SSH key pair for tunnelled datasources (ARCHITECTURE D51), one home for the API
 * (GET /organization, the tunnel) and the operator CLI (`org ssh-key`). Made on first use: the first
 * caller writes it only where none is stored yet, so concurrent first uses agree on one pair.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { ApiError, decryptSecret, encryptSecret } from '@cairn/core';
import { generateSshKeyPair, sshKeyComment } from '@cairn/core/ssh-keys';
import { organizations } from './schema/index.ts';
import type { PgDatabase } from 'drizzle-orm/pg-core';

/** Any drizzle PostgreSQL database: postgres.js's (the CLI) or the API worker's pooled one. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = PgDatabase<any, any, any>;

export interface OrganizationSshKey {
  /** The `ssh-ed25519 … cairn-<org id>` line. */
  publicKey: string;
  /** The sealed private key (decryptSecret with SECRET_KEY gives the OpenSSH block). */
  privateKeySealed: string;
}

/** A new pair for the organization, its private key sealed with `secretKey` (what is stored). */
export async function newSealedSshKeyPair(organizationId: string, secretKey: string): Promise<{ publicKey: string; sealed: string }> {
  const pair = await generateSshKeyPair(sshKeyComment(organizationId));
  return { publicKey: pair.publicKey, sealed: await encryptSecret(pair.privateKey, secretKey) };
}

/** The organization's key pair, made now (sealed with `secretKey`) if it has none yet. */
export async function organizationSshKey(db: Db, organizationId: string, secretKey: string): Promise<OrganizationSshKey> {
  const read = async () => {
    const [row] = await db
      .select({ pub: organizations.ssh_public_key, sealed: organizations.ssh_private_key_encrypted })
      .from(organizations)
      .where(eq(organizations.id, organizationId))
      .limit(1);
    if (!row) throw new ApiError('not_found', `Organization ${organizationId} does not exist.`);
    return row;
  };
  const row = await read();
  if (row.pub && row.sealed) return { publicKey: row.pub, privateKeySealed: row.sealed };
  const { publicKey, sealed } = await newSealedSshKeyPair(organizationId, secretKey);
  await db
    .update(organizations)
    .set({ ssh_public_key: publicKey, ssh_private_key_encrypted: sealed })
    .where(and(eq(organizations.id, organizationId), isNull(organizations.ssh_public_key)));
  // Whoever wrote first wins; every caller returns the stored pair.
  const stored = await read();
  return { publicKey: stored.pub!, privateKeySealed: stored.sealed! };
}

/** The organization's private key as an OpenSSH block (made first if missing). */
export async function organizationSshPrivateKey(db: Db, organizationId: string, secretKey: string): Promise<string> {
  return decryptSecret((await organizationSshKey(db, organizationId, secretKey)).privateKeySealed, secretKey);
}
