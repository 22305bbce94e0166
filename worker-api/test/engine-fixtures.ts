import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { createApp } from '../src/app.ts';
import { eq } from 'drizzle-orm';
import { organizations } from '@cairn/db';
import { db, jsonApi, type CallOptions } from './fixtures.ts';

/** The API app the worker serves (authentication, rate limits and error envelopes are the real ones). */
const app = createApp();

/**
 * Like fixtures.call, through the app above; `waitUntil` work (dispatched runs) goes on in the
 * background. `bindings` replaces the worker's environment (e.g. an operator setting turned on).
 */
export async function appCall(path: string, o: CallOptions = {}, bindings: typeof env = env) {
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers.authorization = `Api ${o.key}`;
  if (o.session) headers.authorization = `Session ${o.session}`;
  let body: string | undefined;
  if (o.rawBody !== undefined) body = o.rawBody;
  else if (o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined) headers['content-type'] = o.contentType ?? 'application/json';
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`https://api.test${path}`, { method: o.method ?? (body ? 'POST' : 'GET'), headers, body }), bindings, ctx);
  const text = await res.text();
  void waitOnExecutionContext(ctx).catch(() => {});
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}

/** Lifts the organization's datasource limit (these suites make many datasources). */
export async function roomForDatasources(organizationId: string, n = 100) {
  await db().update(organizations).set({ plan_datasources: n }).where(eq(organizations.id, organizationId));
}

/** A datasource made through the API (its password sealed as in production). */
export async function makeDatasource(key: string, attributes: Record<string, unknown>): Promise<string> {
  const res = await jsonApi(
    '/datasources',
    'POST',
    {
      type: 'datasources',
      attributes: { name: `DS ${crypto.randomUUID().slice(0, 8)}`, connection_mode: 'direct', ...attributes },
    },
    key,
  );
  if (res.status !== 201) throw new Error(`creating the datasource failed: ${JSON.stringify(res.json)}`);
  return res.json.data.id as string;
}

export const PG_ATTRS = { database_type: 'postgres', host: '127.0.0.1', port: 5432, username: 'postgres', password: 'postgres', database: 'postgres' };
export const MARIADB_ATTRS = { database_type: 'mariadb', host: '127.0.0.1', port: 3306, username: 'root', database: null };

/** Polls until `check` gives a value (not undefined/false) or the time is up. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, ms = 20_000, every = 100): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}
