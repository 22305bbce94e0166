import { and, asc, count, eq } from 'drizzle-orm';
import { ApiError, notFound, type Grant } from '@cairn/core';
import { apiKeys } from '@cairn/db';
import { createApiKey, validateGrants } from '@cairn/db/seed/api-keys';
import type { ServiceContext } from '../../lib/context.ts';
import { requireAdminUser } from '../../auth/principal.ts';
import { forgetApiKey } from '../../auth/authenticate.ts';
import { audit } from '../../lib/audit.ts';
import { offsetOf, resource, toOne, type ListQuery } from '../../lib/jsonapi.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';

type Page = ListQuery;

/** filter[name] and sort of GET /api_keys. */
export const API_KEY_LIST: ListSpec = {
  name: [apiKeys.name],
  sorts: { name: apiKeys.name, created_at: apiKeys.created_at, updated_at: apiKeys.updated_at },
  order: [asc(apiKeys.created_at)],
  id: apiKeys.id,
};
type KeyRow = typeof apiKeys.$inferSelect;

/** The key's public start as the caller typed it: keys name their region (D53), and a key is listed on its own region's API. */
const prefixOf = (region: string, k: KeyRow) => `cairn_${region}_${k.key_id}`;

function serialize(baseUrl: string, region: string, k: KeyRow, secret?: string) {
  return resource(
    baseUrl,
    'api_keys',
    k.id,
    {
      name: k.name,
      key_id: k.key_id,
      prefix: prefixOf(region, k),
      ...(secret ? { secret } : {}),
      permissions: k.permissions,
      enabled: k.enabled,
      last_used_at: k.last_used_at?.toISOString() ?? null,
      created_at: k.created_at.toISOString(),
      updated_at: k.updated_at.toISOString(),
    },
    { created_by_user: toOne('users', k.created_by_user_id) },
  );
}

async function findKey(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.organization_id, ctx.principal.organizationId)))
    .limit(1);
  if (!row) throw notFound('API key', id);
  return row;
}

type KeyInput = { name?: string; permissions?: Grant[]; enabled?: boolean };

export async function listKeys({ ctx, page }: { ctx: ServiceContext; page: Page }) {
  requireAdminUser(ctx.principal);
  const where = and(eq(apiKeys.organization_id, ctx.principal.organizationId), nameFilter(API_KEY_LIST, page));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(apiKeys)
      .where(where)
      .orderBy(...listOrder(API_KEY_LIST, page))
      .limit(page.size)
      .offset(offsetOf(page)),
    ctx.db.select({ n: count() }).from(apiKeys).where(where),
  ]);
  return { data: rows.map((k) => serialize(ctx.baseUrl, ctx.env.REGION, k)), total: total?.n ?? 0 };
}

export async function getKey({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requireAdminUser(ctx.principal);
  return serialize(ctx.baseUrl, ctx.env.REGION, await findKey(ctx, id));
}

/** Restricted resources must exist in the organization (checked by the seed's createApiKey, which also audits). */
export async function createKey({ ctx, input: attrs }: { ctx: ServiceContext; input: KeyInput }) {
  requireAdminUser(ctx.principal);
  const userId = ctx.principal.kind === 'user' ? ctx.principal.userId : null;
  const { apiKey, secret } = await createApiKey(
    ctx.direct().db as unknown as Parameters<typeof createApiKey>[0],
    {
      organizationId: ctx.principal.organizationId,
      name: attrs.name!,
      grants: attrs.permissions!,
      createdByUserId: userId,
    },
    { actor: { type: 'user', id: userId } },
  ).catch(pointAt);
  let row: KeyRow = apiKey;
  if (attrs.enabled === false) {
    const [off] = await ctx.db.update(apiKeys).set({ enabled: false }).where(eq(apiKeys.id, apiKey.id)).returning();
    row = off!;
  }
  return serialize(ctx.baseUrl, ctx.env.REGION, row, secret);
}

export async function updateKey({ ctx, id, input }: { ctx: ServiceContext; id: string; input: KeyInput }) {
  let attrs = input;
  requireAdminUser(ctx.principal);
  forgetApiKey((await findKey(ctx, id)).key_id);
  if (attrs.permissions) {
    // Same validation as on create: restricted resources must be this organization's.
    attrs = { ...attrs, permissions: await validateGrants(ctx.db as never, ctx.principal.organizationId, attrs.permissions).catch(pointAt) };
  }
  const [row] = await ctx.db
    .update(apiKeys)
    .set({ ...attrs, updated_at: new Date() })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.organization_id, ctx.principal.organizationId)))
    .returning();
  await audit(ctx, 'update', 'api_keys', id, { attributes: Object.keys(attrs) });
  return serialize(ctx.baseUrl, ctx.env.REGION, row!);
}

export async function deleteKey({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requireAdminUser(ctx.principal);
  forgetApiKey((await findKey(ctx, id)).key_id);
  await ctx.db.delete(apiKeys).where(and(eq(apiKeys.id, id), eq(apiKeys.organization_id, ctx.principal.organizationId)));
  await audit(ctx, 'delete', 'api_keys', id);
}

/** The seed's validation errors carry no pointer; the API's answers point at the attribute. */
function pointAt(err: unknown): never {
  if (err instanceof ApiError && err.code === 'invalid_attribute' && !err.source) {
    throw new ApiError('invalid_attribute', err.message, { source: { pointer: '/data/attributes/permissions' } });
  }
  throw err;
}
