import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { apiKeys, createDb, sessions, users, type Db } from '@cairn/db';
import { createOrganization, type CreateOrganizationResult } from '@cairn/db/seed/organization';
import { createApiKey } from '@cairn/db/seed/api-keys';
import { generateApiKey, hashPassword, newId, parseApiKey, PERMISSIONS, randomString, sha256Hex, type Grant, type Permission } from '@cairn/core';
import worker from '../src/index.ts';

let client: Db | null = null;
export function db(): Db {
  client ??= createDb(env.HYPERDRIVE.connectionString, { max: 2 }).db;
  return client;
}

/** A fresh organization (with its sample dashboard) per call, so test files never share rows. */
export async function makeOrg(label = 'test'): Promise<CreateOrganizationResult> {
  return createOrganization(db(), {
    name: `${label} ${randomString(6)}`,
    adminEmail: `admin-${randomString(10).toLowerCase()}@example.test`,
    adminPassword: 'correct horse battery',
  });
}

export const all = (): Grant[] => PERMISSIONS.map((permission) => ({ permission, resources: null }));
export const only = (...perms: Permission[]): Grant[] => perms.map((permission) => ({ permission, resources: null }));

export async function makeKey(organizationId: string, grants: Grant[] = all()): Promise<string> {
  const { secret } = await createApiKey(db(), { organizationId, name: `key ${randomString(4)}`, grants });
  return secret;
}

/** The key id (the api_keys.key_id column) of a full key secret, whatever its region part (D53). */
export function keyIdOf(secret: string): string {
  const parsed = parseApiKey(secret);
  if (!parsed) throw new Error(`not an API key: ${secret.slice(0, 12)}…`);
  return parsed.keyId;
}

export interface CallOptions {
  key?: string | null;
  session?: string;
  method?: string;
  body?: unknown;
  rawBody?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export async function call(path: string, o: CallOptions = {}) {
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers.authorization = `Api ${o.key}`;
  if (o.session) headers.authorization = `Session ${o.session}`;
  let body: string | undefined;
  if (o.rawBody !== undefined) body = o.rawBody;
  else if (o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined) headers['content-type'] = o.contentType ?? 'application/json';
  const res = await SELF.fetch(`https://api.test${path}`, { method: o.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}

/** A JSON:API create/update call: `data` is sent as `{ data }` with the JSON:API media type. */
export function jsonApi(path: string, method: 'POST' | 'PATCH', data: unknown, key: string | CallOptions = {}) {
  const o: CallOptions = typeof key === 'string' ? { key } : key;
  return call(path, { ...o, method, body: { data }, contentType: 'application/vnd.api+json' });
}

type Role = 'viewer' | 'analyst' | 'admin';

/** What a test may set on a user row: any column but the organization, and a password (stored hashed). */
export type UserFields = Partial<Omit<typeof users.$inferInsert, 'organization_id' | 'password_hash'>> & { password?: string };

/**
 * A user row of the organization and nothing else (no session): a viewer unless `role` says otherwise,
 * an address of its own unless `email` is given, a password only when one is given. For tests that sign
 * in through the API or count sessions; makeUser adds a signed-in session.
 */
export async function addUser(organizationId: string, fields: UserFields = {}): Promise<{ id: string; email: string }> {
  const { password, ...columns } = fields;
  const id = columns.id ?? newId('user');
  const role: Role = columns.role ?? 'viewer';
  const email = columns.email ?? `${role}-${randomString(10).toLowerCase()}@example.test`;
  const passwordHash = password === undefined ? {} : { password_hash: await hashPassword(password) };
  await db()
    .insert(users)
    .values({ ...columns, ...passwordHash, id, organization_id: organizationId, email, role });
  return { id, email };
}

/** A user of the organization with a signed-in session; `session` goes to `call(…, { session })`. */
export async function makeUser(organizationId: string, role: Role = 'viewer') {
  const { id, email } = await addUser(organizationId, { role, firstname: 'Test', lastname: role });
  const session = randomString(48);
  await db()
    .insert(sessions)
    .values({
      id: await sha256Hex(session),
      organization_id: organizationId,
      user_id: id,
      expires_at: new Date(Date.now() + 3_600_000),
    });
  return { id, email, session };
}

/** A key inserted as is, without checking that restricted resources exist (for restrictions to ids that do not). */
export async function makeRawKey(organizationId: string, grants: Grant[]): Promise<string> {
  const k = generateApiKey();
  await db()
    .insert(apiKeys)
    .values({
      id: newId('api_key'),
      organization_id: organizationId,
      name: `raw ${randomString(4)}`,
      key_id: k.keyId,
      secret_hash: await sha256Hex(k.secret),
      permissions: grants,
    });
  return k.full;
}

/**
 * The API with other settings than the pool's (a trust window, a tight rate limit), called through the
 * worker module in this test's isolate, so its module state (caches, leases) is the one under test.
 */
export async function callWithVars(path: string, key: string, vars: Record<string, string>, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`https://api.test${path}`, { ...init, headers: { authorization: `Api ${key}`, ...(init.headers ?? {}) } }),
    { ...env, ...vars } as never,
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}
