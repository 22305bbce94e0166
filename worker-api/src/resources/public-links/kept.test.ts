import { beforeAll, describe, expect, it } from 'vitest';
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { and, eq, sql } from 'drizzle-orm';
import { executions } from '@cairn/db';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import worker from '../../index.ts';
import { call, db, jsonApi, makeKey, makeOrg } from '../../../test/fixtures.ts';
import { dashboardWith } from '../../../test/dashboard-data-helpers.ts';
import { signLinkUrl } from './signature.ts';

/**
 * The public link reads kept in memory (resources/public-links/kept.ts, lib/read-cache.ts sharedAnswer):
 * a crowd of viewers costs one build, and every rule of the link still applies to each call at once.
 * The calls run with a long trust window and poll reuse, as in production but longer, so a change
 * that is honoured here is honoured because the cache notices it, not because nothing was kept.
 */
let org: CreateOrganizationResult;
let key: string;
const LONG = { READ_CACHE_TRUST_MS: '60000', POLL_REUSE_MS: '60000' };

interface Link {
  id: string;
  token: string;
}

async function makeLink(attributes: Record<string, unknown>, dashboardId = org.sampleDashboard.id): Promise<Link> {
  const res = await jsonApi(
    '/dashboard_sharing_links',
    'POST',
    {
      type: 'dashboard_sharing_links',
      attributes: { name: 'Kept', ...attributes },
      relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } } },
    },
    key,
  );
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { id: res.json.data.id, token: res.json.data.attributes.token };
}

/** A request to the worker with these settings; `authorization` set for the API's own writes. */
async function fetchWith(vars: Record<string, string>, path: string, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`https://api.test${path}`, init), { ...env, ...vars } as never, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

interface PublicCall {
  body?: Record<string, unknown>;
  ip?: string;
  grant?: string;
  vars?: Record<string, string>;
}
function pub(path: string, o: PublicCall = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cf-connecting-ip': o.ip ?? '198.51.100.20' };
  if (o.grant) headers['cairn-link-grant'] = o.grant;
  return fetchWith(o.vars ?? LONG, path, { method: 'POST', body: JSON.stringify(o.body ?? {}), headers });
}
const open = (l: Link, o: PublicCall = {}) => pub(`/public/links/${l.token}`, o);
const status = (l: Link, o: PublicCall = {}) => pub(`/public/links/${l.token}/status`, o);

/** A write through the API, in the same isolate and with the same settings as the public calls. */
function patchLink(l: Link, attributes: Record<string, unknown>) {
  return fetchWith(LONG, `/dashboard_sharing_links/${l.id}`, {
    method: 'PATCH',
    headers: { authorization: `Api ${key}`, 'content-type': 'application/vnd.api+json' },
    body: JSON.stringify({ data: { type: 'dashboard_sharing_links', id: l.id, attributes } }),
  });
}

beforeAll(async () => {
  org = await makeOrg('public-link-cache');
  key = await makeKey(org.organization.id);
});

describe('public link reads kept in memory', () => {
  it('answer a repeated open with the same document, and show a change made through the API at once', async () => {
    const l = await makeLink({ name: 'Lobby screen' });
    const a = await open(l);
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    expect(a.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await open(l)).json).toEqual(a.json);
    // Through this isolate: honoured on the next call, whatever the trust window.
    // (PATCH answers 201, as the reference specifies.)
    expect((await patchLink(l, { name: 'Renamed lobby', ip_whitelist: '203.0.113.0/24' })).status).toBe(201);
    const refused = await open(l);
    expect(refused.status).toBe(403);
    expect(refused.json.errors[0].meta.reason).toBe('ip_not_allowed');
    const allowed = await open(l, { ip: '203.0.113.7' });
    expect(allowed.status).toBe(200);
    expect(allowed.json.link.name).toBe('Renamed lobby');
    // A password set afterwards locks the kept link and its kept answer at once.
    expect((await patchLink(l, { sharing_password: 'kept words' })).status).toBe(201);
    expect((await open(l, { ip: '203.0.113.7' })).json.errors[0].meta.reason).toBe('password_required');
    expect((await status(l, { ip: '203.0.113.7' })).json.errors[0].meta.reason).toBe('password_required');
    const grant = (await pub(`/public/links/${l.token}/password`, { ip: '203.0.113.7', body: { password: 'kept words' } })).json.grant;
    expect((await open(l, { ip: '203.0.113.7', grant })).status).toBe(200);
    // A new password retires the grant at once.
    expect((await patchLink(l, { sharing_password: 'other words' })).status).toBe(201);
    expect((await open(l, { ip: '203.0.113.7', grant })).status).toBe(401);
  });

  it('see changes written straight to the database on the next call (no trust window), and a deleted link is gone', async () => {
    const fresh = { READ_CACHE_TRUST_MS: '0', POLL_REUSE_MS: '60000' };
    const l = await makeLink({});
    expect((await open(l, { vars: fresh })).status).toBe(200);
    await db().execute(sql`update dashboards set name = 'Renamed by hand' where id = ${org.sampleDashboard.id}`);
    expect((await open(l, { vars: fresh })).json.dashboard.name).toBe('Renamed by hand');
    await db().execute(sql`update dashboard_sharing_links set ip_whitelist = '192.0.2.1' where id = ${l.id}`);
    expect((await open(l, { vars: fresh })).json.errors[0].meta.reason).toBe('ip_not_allowed');
    await db().execute(sql`delete from dashboard_sharing_links where id = ${l.id}`);
    expect((await open(l, { vars: fresh, ip: '192.0.2.1' })).status).toBe(404);
  });

  it("check a signed address's expiry on every call, though the answer for its query is kept", async () => {
    const l = await makeLink({ sharing_secret_required: true });
    const secret = (await call(`/dashboard_sharing_links/${l.id}/sharing_secret`, { key, method: 'POST' })).json.sharing_secret;
    const params = new URLSearchParams({ expires: String(Math.floor(Date.now() / 1000) + 2) });
    params.set('signature', await signLinkUrl(secret, `/s/${l.token}`, params));
    const query = params.toString();
    const first = await open(l, { body: { query } });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect((await open(l, { body: { query } })).json).toEqual(first.json);
    await new Promise((r) => setTimeout(r, 3100));
    const late = await open(l, { body: { query } });
    expect(late.status).toBe(403);
    expect(late.json.errors[0].meta.reason).toBe('signature_expired');
    expect((await status(l, { body: { query } })).json.errors[0].meta.reason).toBe('signature_expired');
  });

  it('a burst of first status polls starts one execution per report and hands every viewer the same answer', async () => {
    const tag = Math.random().toString(36).slice(2, 10);
    const board = await dashboardWith(org.organization.id, org.sampleDatasource.id, 'Crowd', [
      { name: 'Slow one', sql: `select '${tag}' as tag, pg_sleep(0.3)` },
      { name: 'Slow two', sql: `select '${tag}-2' as tag, pg_sleep(0.3)` },
    ]);
    const l = await makeLink({ refresh_enabled: true }, board.id);
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => status(l, { ip: `198.51.100.${i + 1}` })));
    for (const a of answers) expect(a.status, JSON.stringify(a.json)).toBe(200);
    for (const a of answers) expect(a.json).toEqual(answers[0]!.json);
    for (const reportId of board.reportIds) {
      const runs = await db()
        .select({ id: executions.id })
        .from(executions)
        .where(and(eq(executions.organization_id, org.organization.id), eq(executions.report_id, reportId)));
      expect(runs.length).toBe(1);
    }
    // Settled (polls that skip the kept answer), then the kept answer is still the one of the burst.
    const uncached = { ...LONG, POLL_REUSE_MS: '0' };
    for (let i = 0; i < 200; i++) {
      const now = await status(l, { vars: uncached });
      if (now.json.reports.every((r: any) => !r.running && r.result_status === 'success')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await status(l)).json).toEqual(answers[0]!.json);
    // A refresh is never answered from memory: it starts new runs, and later polls see them.
    const refreshed = await status(l, { body: { refresh_data: true } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.reports[0].execution_id).not.toBe(answers[0]!.json.reports[0].execution_id);
    expect((await status(l)).json.reports[0].execution_id).toBe(refreshed.json.reports[0].execution_id);
  }, 60_000);
});
