import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { resultObjectKey } from '@cairn/core/results/object';
import { eq, inArray } from 'drizzle-orm';
import { base64url, fromBase64url, newId } from '@cairn/core';
import { dashboardSharingLinks, executions, reports, resultChunks, results } from '@cairn/db';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { canonicalQuery, signLinkUrl } from './signature.ts';

let org: CreateOrganizationResult;
let other: CreateOrganizationResult;
let key: string;

interface Link {
  id: string;
  token: string;
}

async function makeLink(attributes: Record<string, unknown>, o: CreateOrganizationResult = org, k = key): Promise<Link> {
  const res = await jsonApi(
    '/dashboard_sharing_links',
    'POST',
    {
      type: 'dashboard_sharing_links',
      attributes: { name: 'Public', ...attributes },
      relationships: { dashboard: { data: { type: 'dashboards', id: o.sampleDashboard.id } } },
    },
    k,
  );
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { id: res.json.data.id, token: res.json.data.attributes.token };
}

interface PublicCall {
  body?: Record<string, unknown>;
  ip?: string | null;
  grant?: string;
}
function pub(path: string, o: PublicCall = {}) {
  const headers: Record<string, string> = {};
  if (o.ip !== null) headers['cf-connecting-ip'] = o.ip ?? '198.51.100.20';
  if (o.grant) headers['cairn-link-grant'] = o.grant;
  return call(path, { method: 'POST', body: o.body ?? {}, headers });
}
const open = (l: Link, o: PublicCall = {}) => pub(`/public/links/${l.token}`, o);
const status = (l: Link, o: PublicCall = {}) => pub(`/public/links/${l.token}/status`, o);
const unlock = (l: Link, password: string, o: PublicCall = {}) => pub(`/public/links/${l.token}/password`, { ...o, body: { password, ...o.body } });

async function settle(l: Link, o: PublicCall = {}) {
  const until = Date.now() + 60_000;
  for (;;) {
    const res = await status(l, o);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    if (res.json.reports.every((r: any) => !r.running && r.result_status !== 'running') || Date.now() > until) return res.json;
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** The parameters the executions behind a status answer ran with (the sample reports, which all use every filter). */
async function executedParameters(answer: any): Promise<any[]> {
  const sample = new Set(org.sampleDashboard.reports.map((r) => r.id));
  const ids = answer.reports
    .filter((r: any) => sample.has(r.report_id))
    .map((r: any) => r.execution_id)
    .filter(Boolean);
  expect(ids.length).toBe(sample.size);
  const rows = await db().select({ parameters: executions.parameters }).from(executions).where(inArray(executions.id, ids));
  return rows.map((r) => r.parameters);
}

async function signed(l: Link, secret: string, query: Record<string, string>) {
  const params = new URLSearchParams(query);
  params.set('signature', await signLinkUrl(secret, `/s/${l.token}`, params));
  return params.toString();
}

beforeAll(async () => {
  [org, other] = await Promise.all([makeOrg('public-links'), makeOrg('public-links-other')]);
  key = await makeKey(org.organization.id);
});

describe('opening a link', () => {
  it('describes the dashboard without SQL, with the link’s options, to anyone holding the token', async () => {
    const l = await makeLink({ name: 'Wall screen', color_mode: 'dark', data_download_enabled: false });
    const res = await open(l, { ip: null });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.link).toEqual({
      name: 'Wall screen',
      description: null,
      toolbar_enabled: true,
      parameters_enabled: false,
      filter_bar_enabled: false,
      refresh_enabled: false,
      data_download_enabled: false,
      unlimited_csv_export_enabled: false,
      sharing_secret_required: false,
      password_protected: false,
      color_mode: 'dark',
    });
    expect(res.json.dashboard).toMatchObject({ id: org.sampleDashboard.id, default_page_width: 1600, color_scheme: expect.any(String) });
    expect(res.json.dashboard.layout.length).toBeGreaterThan(0);
    expect(res.json.reports.map((r: any) => r.id).sort()).toEqual(org.sampleDashboard.reports.map((r) => r.id).sort());
    expect(res.json.reports.every((r: any) => r.download_enabled === false)).toBe(true);
    const text = JSON.stringify(res.json);
    expect(text).not.toMatch(/sql_query|select |sharing_password|secret"/i);
    // Manual dropdown options stay hidden without the filter bar.
    expect(res.json.filters.every((f: any) => !('options' in f))).toBe(true);
    expect(res.json.parameters).toEqual({});
    // What the filter bar needs besides the filters: the built-in variables in use and the organization's zone.
    expect(res.json.built_ins).toEqual({ timerange: false, aggregation: false });
    expect(res.json.dashboard.organization_time_zone).toBe('UTC');
  });

  it('answers 404 for unknown and malformed tokens and for deleted links', async () => {
    expect((await open({ id: 'x', token: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })).status).toBe(404);
    const bad = await pub('/public/links/bad%20token');
    expect(bad.status).toBe(404);
    expect(bad.json.errors[0]).toMatchObject({ code: 'not_found', source: { parameter: 'token' } });
    const l = await makeLink({});
    expect((await call(`/dashboard_sharing_links/${l.id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await open(l)).status).toBe(404);
    expect((await status(l)).status).toBe(404);
  });

  it('validates bodies like every action call', async () => {
    const l = await makeLink({});
    const extra = await open(l, { body: { parameters: {} } });
    expect(extra.status).toBe(422);
    expect(extra.json.errors[0].code).toBe('unknown_attribute');
    const form = await call(`/public/links/${l.token}`, { method: 'POST', rawBody: 'a=b', contentType: 'text/plain' });
    expect(form.status).toBe(415);
    const badParams = await status(l, { body: { parameters: { aggregation: 'fortnight' } } });
    expect(badParams.status).toBe(422);
    expect(badParams.json.errors[0].source.pointer).toBe('/parameters/aggregation');
  });
});

describe('IP allow-list', () => {
  it('lets in addresses and ranges of the list and refuses everything else, including an unknown address', async () => {
    const l = await makeLink({ ip_whitelist: '203.0.113.7, 198.51.100.0/24, 2001:db8::/32' });
    expect((await open(l, { ip: '203.0.113.7' })).status).toBe(200);
    expect((await open(l, { ip: '198.51.100.250' })).status).toBe(200);
    expect((await open(l, { ip: '2001:db8:1234::1' })).status).toBe(200);
    expect((await open(l, { ip: '::ffff:198.51.100.9' })).status).toBe(200);
    for (const ip of ['203.0.113.8', '198.51.101.1', '2001:db9::1', 'not-an-ip']) {
      const res = await open(l, { ip });
      expect(res.status, ip).toBe(403);
      expect(res.json.errors[0]).toMatchObject({ code: 'forbidden', meta: { reason: 'ip_not_allowed' } });
    }
    expect((await open(l, { ip: null })).status).toBe(403);
    expect((await status(l, { ip: '127.0.0.1' })).status).toBe(403);
  });

  it('does not trust X-Forwarded-For', async () => {
    const l = await makeLink({ ip_whitelist: '203.0.113.7' });
    const res = await call(`/public/links/${l.token}`, { method: 'POST', body: {}, headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(res.status).toBe(403);
  });
});

describe('password', () => {
  it('asks for the password, refuses a wrong one and opens with the grant of the right one', async () => {
    const l = await makeLink({ sharing_password: 'open sesame' });
    const locked = await open(l);
    expect(locked.status).toBe(401);
    expect(locked.json.errors[0]).toMatchObject({ code: 'unauthorized', meta: { reason: 'password_required' } });
    expect((await status(l)).status).toBe(401);

    const wrong = await unlock(l, 'open barley');
    expect(wrong.status).toBe(401);
    expect(wrong.json.errors[0]).toMatchObject({ meta: { reason: 'wrong_password' }, source: { pointer: '/password' } });

    const right = await unlock(l, 'open sesame');
    expect(right.status).toBe(200);
    expect(right.json.grant).toMatch(/^[\w-]+\.[\w-]+\.[\w-]{43}$/);
    expect(Date.parse(right.json.expires_at) - Date.now()).toBeGreaterThan(7 * 3600_000);
    const opened = await open(l, { grant: right.json.grant });
    expect(opened.status).toBe(200);
    expect(opened.json.link.password_protected).toBe(true);
    expect((await status(l, { grant: right.json.grant })).status).toBe(200);

    // A grant is bound to its link, cannot be altered, and dies with a new password.
    const sibling = await makeLink({ sharing_password: 'open sesame' });
    expect((await open(sibling, { grant: right.json.grant })).status).toBe(401);
    // Claims altered (a later expiry) under the same signature.
    const [head, body, mac] = right.json.grant.split('.');
    const claims = JSON.parse(new TextDecoder().decode(fromBase64url(body)));
    const later = base64url(new TextEncoder().encode(JSON.stringify({ ...claims, exp: claims.exp + 3600 })));
    expect((await open(l, { grant: `${head}.${later}.${mac}` })).status).toBe(401);
    await jsonApi(
      `/dashboard_sharing_links/${l.id}`,
      'PATCH',
      { type: 'dashboard_sharing_links', id: l.id, attributes: { sharing_password: 'new secret words' } },
      key,
    );
    expect((await open(l, { grant: right.json.grant })).status).toBe(401);
    // Without a password any more, the link opens without a grant, and unlocking is refused.
    await jsonApi(`/dashboard_sharing_links/${l.id}`, 'PATCH', { type: 'dashboard_sharing_links', id: l.id, attributes: { sharing_password: null } }, key);
    expect((await open(l)).status).toBe(200);
    expect((await unlock(l, 'anything')).json.errors[0].code).toBe('invalid_state');
  });

  it('checks the allow-list before any password guess and slows guessing down per address', async () => {
    const l = await makeLink({ sharing_password: 'open sesame', ip_whitelist: '192.0.2.0/24' });
    expect((await unlock(l, 'open sesame', { ip: '203.0.113.1' })).status).toBe(403);
    const ip = '192.0.2.77';
    for (let i = 0; i < 10; i++) expect((await unlock(l, `guess ${i}`, { ip })).status).toBe(401);
    const limited = await unlock(l, 'open sesame', { ip });
    expect(limited.status).toBe(429);
    expect(limited.json.errors[0].code).toBe('rate_limited');
    // Another address of the list still gets its own attempts.
    expect((await unlock(l, 'open sesame', { ip: '192.0.2.78' })).status).toBe(200);
  }, 60_000);
});

describe('sharing secret', () => {
  it('is read and rolled by people who manage the link, never shown on the public side', async () => {
    const l = await makeLink({ sharing_secret_required: true, parameters_enabled: true });
    const none = await call(`/dashboard_sharing_links/${l.id}/sharing_secret`, { key });
    expect(none.status).toBe(200);
    expect(none.json).toEqual({ sharing_secret: null, sharing_secret_required: true });
    const rolled = await call(`/dashboard_sharing_links/${l.id}/sharing_secret`, { key, method: 'POST' });
    expect(rolled.json.sharing_secret).toMatch(/^[0-9A-Za-z]{48}$/);
    expect((await call(`/dashboard_sharing_links/${l.id}/sharing_secret`, { key })).json.sharing_secret).toBe(rolled.json.sharing_secret);
    const [row] = await db().select().from(dashboardSharingLinks).where(eq(dashboardSharingLinks.id, l.id));
    expect(row!.sharing_secret_encrypted).not.toContain(rolled.json.sharing_secret);
    // Manage Dashboards on the link's dashboard is needed; another organization's link does not exist.
    expect((await call(`/dashboard_sharing_links/${l.id}/sharing_secret`, { key: await makeKey(org.organization.id, only('view_dashboards')) })).status).toBe(
      403,
    );
    const viewer = await makeUser(org.organization.id, 'viewer');
    expect((await call(`/dashboard_sharing_links/${l.id}/sharing_secret`, { session: viewer.session, method: 'POST' })).status).toBe(403);
    expect((await call(`/dashboard_sharing_links/${l.id}/sharing_secret`, { key: await makeKey(other.organization.id) })).status).toBe(404);
    expect((await call(`/dashboard_sharing_links/${l.id}/sharing_secret`)).status).toBe(401);
    const analyst = await makeUser(org.organization.id, 'analyst');
    expect((await call(`/dashboard_sharing_links/${l.id}/sharing_secret`, { session: analyst.session })).status).toBe(200);
  });

  it('opens only with a valid, unexpired signature over the path and the query', async () => {
    const l = await makeLink({ sharing_secret_required: true, parameters_enabled: true });
    const missing = await open(l);
    expect(missing.status).toBe(403);
    expect(missing.json.errors[0].meta.reason).toBe('signature_missing');
    // No secret generated yet: nothing can be valid.
    const early = await open(l, { body: { query: `expires=${Math.floor(Date.now() / 1000) + 600}&signature=${'0'.repeat(64)}` } });
    expect(early.json.errors[0].meta.reason).toBe('signature_invalid');

    const secret = (await call(`/dashboard_sharing_links/${l.id}/sharing_secret`, { key, method: 'POST' })).json.sharing_secret;
    const expires = String(Math.floor(Date.now() / 1000) + 600);
    const query = await signed(l, secret, { 'f.country': 'DE', expires });
    const ok = await open(l, { body: { query } });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json.parameters).toEqual({ filters: [{ variable_name: 'country', selected_values: ['DE'] }] });
    expect(ok.json.fixed_variables).toEqual(['country']);
    expect(ok.json.filters.find((f: any) => f.variable_name === 'country').fixed).toBe(true);

    // Changing a value, the expiry or the signature breaks it; so does an expired URL.
    const tampered = query.replace('f.country=DE', 'f.country=FR');
    expect((await open(l, { body: { query: tampered } })).json.errors[0].meta.reason).toBe('signature_invalid');
    const added = `${query}&f.order_date=1~2`;
    expect((await open(l, { body: { query: added } })).json.errors[0].meta.reason).toBe('signature_invalid');
    const stale = await signed(l, secret, { 'f.country': 'DE', expires: String(Math.floor(Date.now() / 1000) - 1) });
    expect((await open(l, { body: { query: stale } })).json.errors[0].meta.reason).toBe('signature_expired');
    const otherLink = await makeLink({ sharing_secret_required: true });
    expect((await open(otherLink, { body: { query } })).json.errors[0].meta.reason).toBe('signature_invalid');
    // Parameter order does not matter: the canonical form sorts them.
    const reordered = new URLSearchParams(query);
    const shuffled = [...reordered]
      .reverse()
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .join('&');
    expect((await open(l, { body: { query: shuffled } })).status).toBe(200);
    // Rolling the secret retires every URL signed with the old one.
    await call(`/dashboard_sharing_links/${l.id}/sharing_secret`, { key, method: 'POST' });
    expect((await open(l, { body: { query } })).json.errors[0].meta.reason).toBe('signature_invalid');
  });

  it('the canonical query encodes strictly and sorts by name, then value', () => {
    const q = new URLSearchParams([
      ['f.b', "it's (1)"],
      ['f.a', 'x y'],
      ['f.a', 'a'],
      ['signature', 'zz'],
    ]);
    expect(canonicalQuery(q)).toBe('f.a=a&f.a=x%20y&f.b=it%27s%20%281%29');
  });
});

describe('status and parameters', () => {
  it('runs the dashboard as the link (no user: built-in user snippets are NULL) and hands out data tokens', async () => {
    const probe = newId('report');
    const [tpl] = await db().select().from(reports).where(eq(reports.id, org.sampleDashboard.reports[0]!.id));
    await db()
      .insert(reports)
      .values({
        ...tpl!,
        id: probe,
        name: 'Who',
        sql_query: "select coalesce([CAIRN_USER_EMAIL], 'nobody') as who",
        created_at: new Date(),
        updated_at: new Date(),
      });
    try {
      // Its own parameters (a time range nobody else asks for), so the status object is a fresh one.
      const l = await makeLink({ parameters_enabled: true });
      const body = { query: 'f.timerange=1000~2000000000' };
      const done = await settle(l, { body });
      for (const r of done.reports) {
        expect(r.result_status, JSON.stringify(r)).toBe('success');
        expect(r.data_access_token).toBeTruthy();
      }
      const who = done.reports.find((r: any) => r.report_id === probe);
      const [result] = await db().select().from(results).where(eq(results.data_key, who.data_key));
      // The rows are in the region's R2 bucket (D55); results stored in the database before that still read there.
      const object = env.RESULTS ? await env.RESULTS.get(resultObjectKey(result!.execution_id)) : null;
      const chunks = await db().select().from(resultChunks).where(eq(resultChunks.execution_id, result!.execution_id));
      const text = object ? await object.text() : new TextDecoder().decode(chunks[0]!.data as Uint8Array);
      expect(text).toContain('"nobody"');
      const [exe] = await db().select({ created_by: executions.created_by }).from(executions).where(eq(executions.id, who.execution_id));
      expect(exe!.created_by).toBe(l.id);
    } finally {
      await db().delete(reports).where(eq(reports.id, probe));
      await new Promise((r) => setTimeout(r, 3_100)); // the status objects re-read the dashboard every 3 s
    }
  }, 90_000);

  it('ignores URL values unless parameters are enabled, and the viewer’s choice unless the filter bar is', async () => {
    const query = 'f.country=NL';
    const plain = await makeLink({});
    expect((await open(plain, { body: { query } })).json.parameters).toEqual({});
    const choice = { filters: [{ variable_name: 'country', selected_values: ['FR'] }] };
    const plainRun = await settle(plain, { body: { query, parameters: choice } });
    expect(JSON.stringify(await executedParameters(plainRun))).not.toMatch(/NL|FR/);

    const params = await makeLink({ parameters_enabled: true });
    const paramsRun = await settle(params, { body: { query, parameters: choice } });
    for (const p of await executedParameters(paramsRun)) expect(JSON.stringify(p)).toContain('NL');

    const bar = await makeLink({ parameters_enabled: true, filter_bar_enabled: true });
    const opened = await open(bar, { body: { query } });
    expect(opened.json.filters.find((f: any) => f.variable_name === 'country').options.values).toContain('DE');
    const barRun = await settle(bar, { body: { query, parameters: choice } });
    for (const p of await executedParameters(barRun)) expect(JSON.stringify(p)).toContain('FR');

    // Unknown variables and malformed ranges are reported, not used.
    const odd = await open(params, { body: { query: 'f.nope=1&f.order_date=9~1&f.aggregation=fortnight' } });
    expect(odd.json.parameters).toEqual({});
    expect(odd.json.problems).toHaveLength(3);
  }, 120_000);

  it('keeps signed values fixed whatever the viewer sends', async () => {
    const l = await makeLink({ sharing_secret_required: true, parameters_enabled: true, filter_bar_enabled: true });
    const secret = (await call(`/dashboard_sharing_links/${l.id}/sharing_secret`, { key, method: 'POST' })).json.sharing_secret;
    const query = await signed(l, secret, { 'f.country': 'DE', expires: String(Math.floor(Date.now() / 1000) + 600) });
    const run = await settle(l, { body: { query, parameters: { filters: [{ variable_name: 'country', selected_values: ['FR'] }] } } });
    for (const p of await executedParameters(run)) {
      expect(JSON.stringify(p)).toContain('DE');
      expect(JSON.stringify(p)).not.toContain('FR');
    }
  }, 90_000);

  it('refreshes only when the link allows it', async () => {
    const l = await makeLink({});
    const res = await status(l, { body: { refresh_data: true } });
    expect(res.status).toBe(403);
    expect(res.json.errors[0].source.pointer).toBe('/refresh_data');
    const r = await makeLink({ refresh_enabled: true });
    expect((await status(r, { body: { refresh_data: true } })).status).toBe(200);
  });
});

describe('downloads', () => {
  const download = (l: Link, reportId: string, o: PublicCall = {}) =>
    pub(`/public/links/${l.token}/reports/${reportId}/data`, { ...o, body: { data_format: 'csv', ...o.body } });

  it('follow the stricter of the link’s and the report’s switches', async () => {
    const reportId = org.sampleDashboard.reports[0]!.id;
    const off = await makeLink({ data_download_enabled: false });
    const refused = await download(off, reportId);
    expect(refused.status).toBe(403);
    expect(refused.json.errors[0].detail).toContain('sharing link');

    const on = await makeLink({});
    await db().update(reports).set({ data_download_enabled: false }).where(eq(reports.id, reportId));
    try {
      const byReport = await download(on, reportId);
      expect(byReport.status).toBe(403);
      expect(byReport.json.errors[0].detail).toContain('report');
      expect((await open(on)).json.reports.find((r: any) => r.id === reportId).download_enabled).toBe(false);
    } finally {
      await db().update(reports).set({ data_download_enabled: true }).where(eq(reports.id, reportId));
    }
    const allowed = await download(on, reportId);
    expect([403, 404]).not.toContain(allowed.status);
  });

  it('knows only the reports of the link’s dashboard, and checks the link first', async () => {
    const on = await makeLink({});
    expect((await download(on, other.sampleDashboard.reports[0]!.id)).status).toBe(404);
    expect((await download(on, 'rep_nothing')).status).toBe(404);
    const locked = await makeLink({ sharing_password: 'pw pw pw pw' });
    expect((await download(locked, org.sampleDashboard.reports[0]!.id)).status).toBe(401);
    const bad = await download(on, org.sampleDashboard.reports[0]!.id, { body: { data_format: 'pdf' } });
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].source.pointer).toBe('/data_format');
  });
});

describe('fail closed (issue 16)', () => {
  const download = (l: Link, reportId: string, o: PublicCall = {}) =>
    pub(`/public/links/${l.token}/reports/${reportId}/data`, { ...o, body: { data_format: 'csv', ...o.body } });
  const soon = () => String(Math.floor(Date.now() / 1000) + 600);

  async function signedLink(attributes: Record<string, unknown> = {}) {
    const l = await makeLink({ sharing_secret_required: true, parameters_enabled: true, data_download_enabled: true, ...attributes });
    const secret = (await call(`/dashboard_sharing_links/${l.id}/sharing_secret`, { key, method: 'POST' })).json.sharing_secret as string;
    return { l, secret };
  }

  it('a signed value for an unknown filter or of the wrong shape refuses every public call of the link', async () => {
    const { l, secret } = await signedLink();
    const typo = await signed(l, secret, { 'f.customer': '42', 'f.order_date': 'yesterday', 'f.country': 'DE', expires: soon() });
    const reportId = org.sampleDashboard.reports[0]!.id;
    for (const res of [
      await open(l, { body: { query: typo } }),
      await status(l, { body: { query: typo } }),
      await download(l, reportId, { body: { query: typo } }),
    ]) {
      expect(res.status, JSON.stringify(res.json)).toBe(403);
      expect(res.json.errors[0].meta.reason).toBe('signed_parameters_invalid');
      expect(res.json.errors[0].meta.problems.map((p: any) => p.parameter)).toEqual(['f.customer', 'f.order_date']);
      expect(res.json.errors[0].detail).toContain('"customer"');
      // Nothing of the dashboard is in the answer.
      expect(JSON.stringify(res.json)).not.toMatch(/fixed_variables|data_access_token/);
    }
    // The same URL without the bad values opens, with the signed value fixed.
    const good = await signed(l, secret, { 'f.country': 'DE', expires: soon() });
    const ok = await open(l, { body: { query: good } });
    expect(ok.status).toBe(200);
    expect(ok.json.fixed_variables).toEqual(['country']);
    expect(ok.json.problems).toEqual([]);
  });

  it('a signed value is refused on a link that does not take parameters, and on its password call too', async () => {
    const { l, secret } = await signedLink({ parameters_enabled: false });
    const query = await signed(l, secret, { 'f.country': 'DE', expires: soon() });
    const res = await open(l, { body: { query } });
    expect(res.status).toBe(403);
    expect(res.json.errors[0].meta).toMatchObject({ reason: 'signed_parameters_invalid', problems: [{ parameter: 'f.country' }] });
    expect(res.json.errors[0].detail).toContain('parameters_enabled');
    // Without values the link opens as before.
    expect((await open(l, { body: { query: await signed(l, secret, { expires: soon() }) } })).status).toBe(200);

    const locked = await signedLink({ sharing_password: 'pw pw pw pw' });
    const bad = await signed(locked.l, locked.secret, { 'f.nope': '1', expires: soon() });
    const unlocking = await unlock(locked.l, 'pw pw pw pw', { body: { query: bad } });
    expect(unlocking.status).toBe(403);
    expect(unlocking.json.errors[0].meta.reason).toBe('signed_parameters_invalid');
  });

  it('an expiry more than a year ahead has its own reason', async () => {
    const { l, secret } = await signedLink();
    const far = await signed(l, secret, { expires: String(Math.floor(Date.now() / 1000) + 400 * 86_400) });
    const res = await open(l, { body: { query: far } });
    expect(res.status).toBe(403);
    expect(res.json.errors[0].meta.reason).toBe('signature_expiry_too_far');
    expect(res.json.errors[0].detail).toMatch(/366 days/);
    const year = await signed(l, secret, { expires: String(Math.floor(Date.now() / 1000) + 360 * 86_400) });
    expect((await open(l, { body: { query: year } })).status).toBe(200);
  });

  it('unsigned values that cannot apply are left out with a notice, the rest applies', async () => {
    const l = await makeLink({ parameters_enabled: true });
    const res = await open(l, { body: { query: 'f.Country=NL&f.country=DE&f.order_date=soon' } });
    expect(res.status).toBe(200);
    expect(res.json.parameters).toEqual({ filters: [{ variable_name: 'country', selected_values: ['DE'] }] });
    expect(res.json.problems).toEqual(['This dashboard has no filter named "Country"; its value was ignored.', expect.stringContaining('"order_date"')]);
  });

  it("anonymous viewers see a generic message for a failing report; signed-in callers see the database's", async () => {
    const broken = newId('report');
    await db().insert(reports).values({
      id: broken,
      organization_id: org.organization.id,
      dashboard_id: org.sampleDashboard.id,
      datasource_id: org.sampleDatasource.id,
      name: 'Broken',
      sql_query: 'select secret_column from no_such_table_h1',
    });
    try {
      // Values no earlier test used: a status object that reads the dashboard's reports afresh.
      const l = await makeLink({ data_download_enabled: true, parameters_enabled: true });
      const query = 'f.country=ZZ';
      const until = Date.now() + 60_000;
      let item: any;
      for (;;) {
        const res = await status(l, { body: { query } });
        expect(res.status).toBe(200);
        item = res.json.reports.find((r: any) => r.report_id === broken);
        if (item.result_status === 'error' || Date.now() > until) break;
        await new Promise((r) => setTimeout(r, 150));
      }
      expect(item.error).toEqual({ code: expect.any(String), message: "This report could not be run. The dashboard's owner can see the details." });
      const publicAnswer = JSON.stringify((await status(l, { body: { query } })).json);
      expect(publicAnswer).not.toMatch(/no_such_table_h1|secret_column|relation/);

      const analyst = await call(`/dashboards/${org.sampleDashboard.id}/status`, {
        key,
        method: 'POST',
        body: { parameters: { filters: [{ variable_name: 'country', selected_values: ['ZZ'] }] } },
      });
      expect(analyst.json.reports.find((r: any) => r.report_id === broken).error.message).toMatch(/no_such_table_h1/);

      const file = await download(l, broken);
      expect(file.status).toBe(422);
      expect(file.json.errors[0].detail).toBe("This report could not be run. The dashboard's owner can see the details.");
      expect(JSON.stringify(file.json)).not.toMatch(/no_such_table_h1/);
      const direct = await call(`/reports/${broken}/data`, { key, method: 'POST', body: { data_format: 'csv' } });
      expect(direct.status).toBe(422);
      expect(direct.json.errors[0].detail).toMatch(/no_such_table_h1/);
    } finally {
      await db().delete(reports).where(eq(reports.id, broken));
    }
  }, 90_000);
});
