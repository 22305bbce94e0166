/** Development seeding used by `npm start` and the test harness: idempotent, keeps its credentials in a file. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { readJsonObject } from '../dev-config.ts';
import { dirname } from 'node:path';
import { and, eq, sql as dsql } from 'drizzle-orm';
import { hashPassword, parseApiKey, PERMISSIONS, sha256Hex, timingSafeEqual, verifyPassword } from '@cairn/core';
import { createDb, type Db } from '../client.ts';
import { migrate } from '../migrate.ts';
import { ensureSampleDatabase } from '../sample-shop/setup.ts';
import { apiKeys, organizations, users } from '../schema/index.ts';
import { audit, SYSTEM_ACTOR } from './audit.ts';
import { createApiKey } from './api-keys.ts';
import { createOrganization, generateReadablePassword } from './organization.ts';

export const DEV_ORGANIZATION_NAME = 'Cairn Demo';
export const DEV_ADMIN_EMAIL = 'admin@cairn.local';
export const DEV_API_KEY_NAME = 'Development key (all permissions)';

export interface DevCredentials {
  organization_id: string;
  admin: { email: string; password: string };
  api_key: string;
}
export interface DevSeedResult extends DevCredentials {
  /** True when this call wrote anything (organization, password reset or a new key). */
  created: boolean;
  /** The sample datasource's connection: the sample database as the login role cairn_sample (D32). */
  sample_database_url: string;
}

function credentialsIn(file: Record<string, unknown> | null): DevCredentials | null {
  if (!file) return null;
  const admin = file.admin as { email?: unknown; password?: unknown } | undefined;
  if (typeof file.organization_id !== 'string' || typeof file.api_key !== 'string') return null;
  if (!admin || typeof admin.email !== 'string' || typeof admin.password !== 'string') return null;
  return { organization_id: file.organization_id, admin: { email: admin.email, password: admin.password }, api_key: file.api_key };
}

async function keyIsUsable(db: Db, organizationId: string, fullKey: string): Promise<boolean> {
  const parsed = parseApiKey(fullKey);
  if (!parsed) return false;
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.key_id, parsed.keyId), eq(apiKeys.organization_id, organizationId)))
    .limit(1);
  return !!row && row.enabled && timingSafeEqual(row.secret_hash, await sha256Hex(parsed.secret));
}

async function newDevKey(db: Db, organizationId: string, adminId: string | null): Promise<string> {
  const { secret } = await createApiKey(db, {
    organizationId,
    name: DEV_API_KEY_NAME,
    grants: PERMISSIONS.map((permission) => ({ permission, resources: null })),
    createdByUserId: adminId,
  });
  return secret;
}

/** Gives the dev admin a fresh password (dev databases only: used when the saved one no longer works). */
async function resetPassword(db: Db, user: { id: string; organization_id: string }): Promise<string> {
  const password = generateReadablePassword();
  const hash = await hashPassword(password);
  await db.transaction(async (tx) => {
    await tx.update(users).set({ password_hash: hash }).where(eq(users.id, user.id));
    await audit(tx, SYSTEM_ACTOR, {
      organizationId: user.organization_id,
      action: 'reset_password',
      resourceType: 'user',
      resourceId: user.id,
    });
  });
  return password;
}

/**
 * Makes the database at `url` ready for development: applies migrations, makes the sample database next to
 * it (`<name>_sample` with the shop and the login role, sample-shop/setup.ts; the shop's dates moved so that
 * its last day is yesterday), and makes
 * sure the demo organization "Cairn Demo" with admin admin@cairn.local and an all-permissions API key
 * exist and match the credentials in `credsPath`. Creates them (and writes `organization_id`, `admin` and
 * `api_key` into `credsPath`, keeping its other keys) when the file is missing or its organization is
 * gone; repairs a password or key that no longer works; otherwise changes nothing.
 */
export async function ensureDevSeed(url: string, credsPath: string): Promise<DevSeedResult> {
  await migrate(url);
  // The demo's shop ends yesterday, whatever the date (sample-shop/dates.ts).
  const sample = await ensureSampleDatabase(url, { moveDates: true });
  const { sql, db } = createDb(url, { max: 2 });
  try {
    const file = readJsonObject(credsPath, 'fix it or delete it to seed again');
    const saved = credentialsIn(file);
    let creds: DevCredentials;
    let created = false;

    const savedOrg = saved
      ? (await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, saved.organization_id)).limit(1))[0]
      : undefined;
    if (saved && savedOrg) {
      creds = { ...saved, admin: { ...saved.admin } };
      const [admin] = await db
        .select()
        .from(users)
        .where(and(eq(users.organization_id, saved.organization_id), eq(dsql`lower(${users.email})`, saved.admin.email.toLowerCase())))
        .limit(1);
      if (admin && !(admin.password_hash && (await verifyPassword(saved.admin.password, admin.password_hash)))) {
        creds.admin.password = await resetPassword(db, admin);
        created = true;
      }
      if (!(await keyIsUsable(db, saved.organization_id, saved.api_key))) {
        creds.api_key = await newDevKey(db, saved.organization_id, admin?.id ?? null);
        created = true;
      }
    } else {
      created = true;
      const [existingAdmin] = await db
        .select()
        .from(users)
        .where(eq(dsql`lower(${users.email})`, DEV_ADMIN_EMAIL))
        .limit(1);
      if (existingAdmin) {
        // The credentials file was lost but the database kept the demo organization: reuse it.
        const password = await resetPassword(db, existingAdmin);
        creds = {
          organization_id: existingAdmin.organization_id,
          admin: { email: DEV_ADMIN_EMAIL, password },
          api_key: await newDevKey(db, existingAdmin.organization_id, existingAdmin.id),
        };
      } else {
        const org = await createOrganization(db, {
          name: DEV_ORGANIZATION_NAME,
          adminEmail: DEV_ADMIN_EMAIL,
          adminFirstname: 'Demo',
          adminLastname: 'Admin',
        });
        creds = {
          organization_id: org.organization.id,
          admin: { email: DEV_ADMIN_EMAIL, password: org.adminPassword },
          api_key: await newDevKey(db, org.organization.id, org.admin.id),
        };
      }
    }

    if (created) {
      mkdirSync(dirname(credsPath), { recursive: true });
      writeFileSync(credsPath, `${JSON.stringify({ ...(file ?? {}), ...creds }, null, 2)}\n`, { mode: 0o600 });
    }
    return { ...creds, created, sample_database_url: sample.url };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
