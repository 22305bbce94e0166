import { and, asc, eq, inArray } from 'drizzle-orm';
import {
  ApiError,
  generateApiKey,
  isPermission,
  isRegion,
  type Region,
  newId,
  RESTRICTABLE_RESOURCE_TYPES,
  sha256Hex,
  type Grant,
  type RestrictableResourceType,
} from '@cairn/core';
import { apiKeys, dashboards, datasources, organizations, sqlAlerts } from '../schema/index.ts';
import type { Db } from '../client.ts';
import { audit, SYSTEM_ACTOR, type Actor, type Executor } from './audit.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;
/** An API key as listed: everything but the secret's hash. */
export type ApiKeySummary = Omit<ApiKeyRow, 'secret_hash'>;

export interface CreateApiKeyInput {
  organizationId: string;
  name: string;
  grants: Grant[];
  createdByUserId?: string | null;
}

const RESOURCE_TABLES = { dashboards, datasources, sql_alerts: sqlAlerts } as const;

async function requireOrganization(ex: Executor, organizationId: string): Promise<Region> {
  const found = await ex
    .select({ id: organizations.id, region: organizations.region })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1);
  if (found.length === 0) throw new ApiError('not_found', `No organization with id ${organizationId}.`);
  return isRegion(found[0]!.region) ? found[0]!.region : 'eu';
}

/** Checks the grants' shape and that every restricted resource exists in the organization. */
export async function validateGrants(ex: Executor, organizationId: string, grants: unknown): Promise<Grant[]> {
  if (!Array.isArray(grants) || grants.length === 0) {
    throw new ApiError('invalid_attribute', 'An API key needs at least one permission.');
  }
  const wanted = new Map<RestrictableResourceType, Set<string>>();
  const clean: Grant[] = [];
  for (const g of grants as Grant[]) {
    if (!g || typeof g.permission !== 'string' || !isPermission(g.permission)) {
      throw new ApiError('invalid_attribute', `Unknown permission "${String(g?.permission)}".`);
    }
    if (g.resources !== null && !Array.isArray(g.resources)) {
      throw new ApiError('invalid_attribute', `The resources of permission ${g.permission} must be a list or null.`);
    }
    for (const r of g.resources ?? []) {
      if (!(RESTRICTABLE_RESOURCE_TYPES as readonly string[]).includes(r?.type) || typeof r.id !== 'string' || !r.id) {
        throw new ApiError(
          'invalid_attribute',
          `A permission can be restricted only to ${RESTRICTABLE_RESOURCE_TYPES.join(', ')} by id; got "${String(r?.type)}:${String(r?.id)}".`,
        );
      }
      if (!wanted.has(r.type)) wanted.set(r.type, new Set());
      wanted.get(r.type)!.add(r.id);
    }
    clean.push({ permission: g.permission, resources: g.resources === null ? null : g.resources.map((r) => ({ type: r.type, id: r.id })) });
  }
  for (const [type, ids] of wanted) {
    const table = RESOURCE_TABLES[type];
    const rows = await ex
      .select({ id: table.id })
      .from(table)
      .where(and(eq(table.organization_id, organizationId), inArray(table.id, [...ids])));
    const found = new Set(rows.map((r) => r.id));
    const missing = [...ids].filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new ApiError('invalid_attribute', `No ${type} with id ${missing.join(', ')} in this organization.`);
    }
  }
  return clean;
}

/**
 * Creates an API key. The full key (`cairn_<region>_<key id>_<secret>`, D53) is returned once, here, and never again:
 * the row keeps the key id and the SHA-256 of the secret part only.
 */
export async function createApiKey(db: Db, input: CreateApiKeyInput, opts: { actor?: Actor } = {}): Promise<{ apiKey: ApiKeyRow; secret: string }> {
  const actor = opts.actor ?? SYSTEM_ACTOR;
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name) throw new ApiError('invalid_attribute', 'The API key name must not be empty.');
  if (name.length > 200) throw new ApiError('invalid_attribute', 'The API key name is longer than 200 characters.');
  return db.transaction(async (tx) => {
    const key = generateApiKey(await requireOrganization(tx, input.organizationId));
    const secretHash = await sha256Hex(key.secret);
    const grants = await validateGrants(tx, input.organizationId, input.grants);
    const [apiKey] = await tx
      .insert(apiKeys)
      .values({
        id: newId('api_key'),
        organization_id: input.organizationId,
        name,
        key_id: key.keyId,
        secret_hash: secretHash,
        permissions: grants,
        created_by_user_id: input.createdByUserId ?? null,
      })
      .returning();
    await audit(tx, actor, {
      organizationId: input.organizationId,
      action: 'create',
      resourceType: 'api_key',
      resourceId: apiKey!.id,
      details: { name, permissions: grants.map((g) => g.permission) },
    });
    return { apiKey: apiKey!, secret: key.full };
  });
}

/** The organization's API keys, oldest first, without their secret hashes. */
export async function listApiKeys(db: Db, organizationId: string): Promise<ApiKeySummary[]> {
  await requireOrganization(db, organizationId);
  const rows = await db.select().from(apiKeys).where(eq(apiKeys.organization_id, organizationId)).orderBy(asc(apiKeys.created_at), asc(apiKeys.id));
  return rows.map(({ secret_hash: _hidden, ...rest }) => rest);
}

/**
 * Enables or disables an API key by its row id (`key_…`). With `organizationId` the key must belong to
 * that organization. Throws ApiError not_found otherwise. Returns the updated key without its hash.
 */
export async function setApiKeyEnabled(
  db: Db,
  input: { id: string; enabled: boolean; organizationId?: string },
  opts: { actor?: Actor } = {},
): Promise<ApiKeySummary> {
  const actor = opts.actor ?? SYSTEM_ACTOR;
  return db.transaction(async (tx) => {
    const where = input.organizationId ? and(eq(apiKeys.id, input.id), eq(apiKeys.organization_id, input.organizationId)) : eq(apiKeys.id, input.id);
    const [row] = await tx.update(apiKeys).set({ enabled: input.enabled }).where(where).returning();
    if (!row) throw new ApiError('not_found', `No API key with id ${input.id}.`);
    await audit(tx, actor, {
      organizationId: row.organization_id,
      action: input.enabled ? 'enable' : 'disable',
      resourceType: 'api_key',
      resourceId: row.id,
    });
    const { secret_hash: _hidden, ...rest } = row;
    return rest;
  });
}
