/**
 * The malformed-input fuzz for the `/auth` routes (issue 14): sign-in and its second step, password
 * resets, invitations (sign-up), the account's own calls. They are outside the OpenAPI document (D31),
 * so fuzz-kit.ts never reaches them; the web app's sign-in, sign-up and reset pages post to exactly
 * these. The routes come from the app itself: a new `/auth` route that takes a body fails the first
 * test until it has a base body here. Every body gets broken JSON, wrong roots, deep nesting, other
 * media types, and each member wrong JSON types, U+0000, huge and unicode text and seeded fast-check
 * values; every `{token}` gets `%00`, bad encodings, unicode and huge tokens. No answer may be a 5xx;
 * every refusal is a JSON:API error document, and a refused member is pointed at.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { call, makeOrg, makeUser, type CallOptions } from './fixtures.ts';
import { expectJsonApiDocument } from './jsonapi-schema.ts';
import { createApp } from '../src/app.ts';

const SEED = 20261127;
/** A base body for every `/auth` route that takes one: valid in shape, so each broken member is the only fault. */
const BASES: Record<string, Record<string, unknown>> = {
  'POST /auth/sessions': { email: 'nobody@example.test', password: 'not the password' },
  'POST /auth/sessions/two-factor': { challenge: 'no-such-challenge', code: '123456' },
  'PATCH /auth/me': { firstname: 'Ada', lastname: 'Lovelace' },
  'POST /auth/password': { current_password: 'not the password', new_password: 'a long enough password' },
  'POST /auth/password-resets': { email: 'nobody@example.test' },
  'POST /auth/password-resets/{token}': { password: 'a long enough password' },
  'POST /auth/invitations/{token}': { password: 'a long enough password', firstname: 'Ada', lastname: 'Lovelace' },
  'POST /auth/two-factor/confirm': { code: '123456' },
  'POST /auth/two-factor/disable': { current_password: 'not the password', code: '123456' },
  // Single sign-on (D57). No connection covers the address, so start refuses at /email; the callback and the
  // ACS refuse an unknown attempt with a 401; the connection body is a valid SAML setup (nothing is fetched).
  'POST /auth/sso/start': { email: 'nobody@example.test' },
  'POST /auth/sso/oidc/callback': { code: 'not-a-code', state: 'not-a-state' },
  'POST /auth/sso/saml/acs': { saml_response: 'bm90IGEgU0FNTCByZXNwb25zZQ==' },
  'PUT /auth/organization/security': { require_two_factor: false },
  'PUT /auth/sso/connection': {
    protocol: 'saml',
    issuer: 'https://idp.fuzz.example',
    sso_url: 'https://idp.fuzz.example/sso',
    certificate: 'MIIB'.padEnd(160, 'A'),
    domains: ['fuzz-auth.example'],
  },
};
/** `/auth` calls without a body (they act on the caller's own session or start a setup): not fuzzed for bodies. */
const NO_BODY = new Set(['POST /auth/two-factor', 'DELETE /auth/session', 'DELETE /auth/sessions/others', 'POST /auth/users/{id}/two-factor/reset']);

const NUL_STRINGS = ['\u0000', 'before\u0000after'];
const UNICODE = [
  '👩‍👩‍👧‍👦🏳️‍🌈'.repeat(300),
  'مرحبا \u202Eevil\u202C שלום'.repeat(100),
  '\uD800 lone \uDFFF surrogates',
  '\uFEFF\u200B\u2028\u2029',
  'x'.repeat(100_000),
];
const WRONG_TYPES: unknown[] = [12345, -0.5, true, [], {}, ['a', 1], { nested: { x: [1] } }, 1e308, null];
const BROKEN_JSON = ['{', '{"email":', '{"a": 1,}', 'nul', '[1, 2', '{"a": "\\x"}', '\u0000', '{} trailing', "{'single': 1}", '{"a": 1}}'];
const WRONG_ROOTS = ['[]', '"text"', '42', 'null', 'true', '['.repeat(20_000) + ']'.repeat(20_000), '{"a":'.repeat(3_000) + '1' + '}'.repeat(3_000)];
const OTHER_TYPES: [string, string][] = [
  ['application/x-www-form-urlencoded', 'email=a%40b.c&password=x'],
  ['text/plain', '{"email":"a@b.c"}'],
  ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.c\r\n--x--'],
  ['application/json; charset=latin1', '{"email": "\u00e9"}'],
];
const BAD_TOKENS = ['%00', 'abc%00def', '%E0%A4%A', '%', '%FF%FE', encodeURIComponent('🙂'.repeat(50)), 'x'.repeat(5_000), '..%2F..%2Fhealth'];

interface Route {
  method: string;
  path: string;
}
let routes: Route[] = [];
let session: string;
const figures = { requests: 0, status5xx: 0, badErrorDocuments: 0, pointerless: 0 };
let problems: string[] = [];

const label = (r: Route) => `${r.method} ${r.path}`;
const fill = (path: string, token = `t${crypto.randomUUID().replace(/-/g, '')}`) => path.replace('{token}', token);

async function send(r: Route, what: string, o: CallOptions & { path?: string }, member?: string) {
  const res = await call(o.path ?? fill(r.path), { session, method: r.method, ...o });
  figures.requests++;
  const where = `${label(r)} [${what}] → ${res.status}`;
  if (res.status >= 500) {
    figures.status5xx++;
    problems.push(`${where}: ${JSON.stringify(res.json).slice(0, 300)}`);
  }
  if (res.status >= 400) {
    try {
      expectJsonApiDocument(res.json);
    } catch {
      figures.badErrorDocuments++;
      problems.push(`${where}: not a JSON:API error document: ${JSON.stringify(res.json).slice(0, 200)}`);
    }
    // A refusal for the member itself must point at it or into it (`/domains/0`; a refusal for another reason, such as a
    // throttle or an unknown token, need not).
    if (
      member &&
      res.status === 422 &&
      !res.json?.errors?.some((e: any) => e.source?.pointer === `/${member}` || e.source?.pointer?.startsWith(`/${member}/`))
    ) {
      figures.pointerless++;
      problems.push(`${where}: 422 without a pointer at /${member}: ${JSON.stringify(res.json).slice(0, 200)}`);
    }
  }
  return res;
}

/** Run `fn` over `items` with a few requests in flight at once. */
async function pool<T>(items: T[], fn: (x: T) => Promise<unknown>, width = 4) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const bodyRoutes = () => routes.filter((r) => BASES[label(r)]);

beforeAll(async () => {
  const seen = new Set<string>();
  routes = createApp()
    .routes.filter((r) => r.method !== 'ALL' && r.path.startsWith('/auth/'))
    .map((r) => ({ method: r.method, path: r.path.replace(/:(\w+)/g, '{$1}') }))
    .filter((r) => !seen.has(label(r)) && seen.add(label(r)));
  const org = await makeOrg('fuzz-auth');
  // An admin: every account call is allowed, so the fuzz reaches validation on all of them.
  session = (await makeUser(org.organization.id, 'admin')).session;
});

describe('malformed input to the /auth routes never gives a 5xx', () => {
  beforeEach(() => {
    problems = [];
  });

  it('has a base body for every /auth route that takes one (a new route fails here until it has one)', () => {
    expect(routes.length).toBeGreaterThan(10);
    const unknown = routes.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && !BASES[label(r)] && !NO_BODY.has(label(r)));
    expect(unknown.map(label)).toEqual([]);
    for (const key of Object.keys(BASES)) expect(routes.map(label), key).toContain(key);
  });

  it('broken JSON, wrong roots, deep nesting and other media types', async () => {
    const cases = bodyRoutes().flatMap((r) => [
      ...BROKEN_JSON.map((raw) => ({ r, what: `broken ${JSON.stringify(raw).slice(0, 20)}`, o: { rawBody: raw } })),
      ...WRONG_ROOTS.map((raw) => ({ r, what: `root ${raw.slice(0, 12)}`, o: { rawBody: raw } })),
      ...OTHER_TYPES.map(([contentType, raw]) => ({ r, what: contentType, o: { rawBody: raw, contentType } })),
      { r, what: 'unknown member', o: { body: { ...BASES[label(r)], surprise: 1 } } },
      // (PATCH /auth/me takes every member as optional: an empty object changes nothing, and is fine.)
      ...(r.method === 'PATCH' ? [] : [{ r, what: 'empty object', o: { body: {} } }]),
    ]);
    await pool(cases, async (c) => {
      const res = await send(c.r, c.what, c.o);
      // None of these is a body the route can act on.
      if (res.status < 400) problems.push(`${label(c.r)} [${c.what}] accepted with ${res.status}`);
    });
    expect(problems, problems.join('\n')).toEqual([]);
  }, 120_000);

  it('wrong types, U+0000, huge and unicode text in every member', async () => {
    const cases = bodyRoutes().flatMap((r) =>
      Object.keys(BASES[label(r)]!).flatMap((member) =>
        [...WRONG_TYPES, ...NUL_STRINGS, ...UNICODE].map((v, k) => ({ r, member, v, what: `${member} #${k}` })),
      ),
    );
    await pool(cases, async (c) => {
      const typed = typeof c.v === 'string' && !c.v.includes('\u0000') && !/[\uD800-\uDFFF]/.test(c.v);
      // Right-typed text may be accepted (a name); everything else is refused and pointed at.
      await send(c.r, c.what, { body: { ...BASES[label(c.r)], [c.member]: c.v } }, typed ? undefined : c.member);
    });
    expect(problems, problems.join('\n')).toEqual([]);
  }, 180_000);

  it('seeded random JSON values in every member', async () => {
    const values = fc.sample(fc.jsonValue({ maxDepth: 3 }), { seed: SEED, numRuns: 12 });
    const strings = fc.sample(fc.string({ unit: 'grapheme', maxLength: 200 }), { seed: SEED, numRuns: 6 });
    const cases = bodyRoutes().flatMap((r) =>
      Object.keys(BASES[label(r)]!).flatMap((member) => [...values, ...strings].map((v, k) => ({ r, member, v, what: `${member} random #${k}` }))),
    );
    await pool(cases, (c) => send(c.r, c.what, { body: { ...BASES[label(c.r)], [c.member]: c.v } }));
    expect(problems, problems.join('\n')).toEqual([]);
  }, 180_000);

  it('%00, bad encodings, unicode and huge tokens in the path', async () => {
    const cases = routes.filter((r) => r.path.includes('{token}')).flatMap((r) => BAD_TOKENS.map((t) => ({ r, t })));
    await pool(cases, async (c) => {
      const res = await send(c.r, `token ${c.t.slice(0, 16)}`, { path: fill(c.r.path, c.t), ...(BASES[label(c.r)] ? { body: BASES[label(c.r)] } : {}) });
      if (res.status < 400) problems.push(`${label(c.r)} [token ${c.t.slice(0, 16)}] accepted with ${res.status}`);
    });
    expect(problems, problems.join('\n')).toEqual([]);
  }, 120_000);

  it('figures', () => {
    console.log(`auth fuzz figures: ${JSON.stringify(figures)}`);
    expect(figures.requests).toBeGreaterThan(300);
    expect(figures.status5xx).toBe(0);
  });
});
