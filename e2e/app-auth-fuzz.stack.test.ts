/**
 * The malformed-input fuzz for the web app's sign-in, sign-up (invitation), password reset and account
 * pages (issue 14), against a running stack: what a browser (or anyone) can post to their actions. Every
 * field gets U+0000, huge, unicode and invalid UTF-8 values, repeated fields, files in place of text,
 * thousands of fields and broken bodies of every media type. No answer may be a 5xx (the app answers 503
 * when the API fails, so an API 500 behind a page shows here too), and a redirect never leaves the app
 * nor carries a line break. The same values reach the API's `/auth` routes directly in
 * worker-api/test/fuzz-auth.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getStack } from './harness.ts';

const stack = getStack();
const APP = (stack.app ?? `http://127.0.0.1:0/app/`).replace(/\/app\/?$/, '');
const figures = { requests: 0, status5xx: 0 };

/** Percent-encoded values for urlencoded bodies: raw bytes a browser never sends, too. */
const VALUES: [string, string][] = [
  ['NUL', '%00'],
  ['NUL inside', 'a%00b%40example.com'],
  ['huge', 'x'.repeat(200_000)],
  ['emoji', encodeURIComponent('👩‍👩‍👧‍👦🏳️‍🌈'.repeat(300))],
  ['right-to-left', encodeURIComponent('مرحبا \u202Eevil\u202C שלום'.repeat(50))],
  ['lone surrogate as UTF-8', '%ED%A0%80'],
  ['invalid UTF-8', '%FF%FE%C0%AF'],
  ['bad percent', '%E0%A4%A'],
  ['lone percent', '%'],
  ['CRLF', 'a%0D%0ASet-Cookie:%20x=1'],
  ['empty', ''],
  ['spaces', '+++'],
  ['zero width', encodeURIComponent('\uFEFF\u200B\u2028\u2029')],
];

interface Page {
  path: string;
  fields: string[];
  session?: boolean;
  fixed?: Record<string, string>;
}
const PAGES: Page[] = [
  { path: '/app/login', fields: ['email', 'password', 'next'] },
  { path: '/app/login', fields: ['challenge', 'code', 'recovery_code', 'next'], fixed: { intent: 'code' } },
  { path: '/app/forgot-password', fields: ['email'] },
  { path: `/app/reset-password/${'r'.repeat(40)}`, fields: ['password', 'password_again'] },
  { path: `/app/invitation/${'i'.repeat(40)}`, fields: ['firstname', 'lastname', 'password', 'password_again'] },
  { path: '/app/account', fields: ['current_password', 'new_password', 'new_password_again'], session: true, fixed: { intent: 'password' } },
  { path: '/app/account', fields: ['code'], session: true, fixed: { intent: 'two-factor-confirm' } },
  { path: '/app/account', fields: ['current_password', 'code', 'recovery_code'], session: true, fixed: { intent: 'two-factor-disable' } },
  { path: '/app/account', fields: ['intent'], session: true },
];

let cookie = '';
const problems: string[] = [];

async function post(path: string, body: string | FormData, contentType: string | null, what: string, session = false) {
  const headers: Record<string, string> = {};
  if (contentType) headers['content-type'] = contentType;
  if (session) headers.cookie = cookie;
  const res = await fetch(`${APP}${path}`, { method: 'POST', body, headers, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
  await res.arrayBuffer();
  figures.requests++;
  const label = `POST ${path.slice(0, 40)} [${what}] → ${res.status}`;
  if (res.status >= 500) {
    figures.status5xx++;
    problems.push(label);
  }
  const location = res.headers.get('location');
  if (location !== null && (/[\r\n]/.test(location) || !(location.startsWith('/') && !location.startsWith('//')))) {
    problems.push(`${label}: redirects to ${JSON.stringify(location)}`);
  }
  return res;
}

/** Run `fn` over `items` with a few requests in flight at once. */
async function pool<T>(items: T[], fn: (x: T) => Promise<unknown>, width = 3) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const URLENCODED = 'application/x-www-form-urlencoded';
const encode = (o: Record<string, string>) =>
  Object.entries(o)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');

beforeAll(async () => {
  if (!stack.app) return;
  const res = await fetch(`${APP}/app/login`, {
    method: 'POST',
    headers: { 'content-type': URLENCODED },
    redirect: 'manual',
    body: encode({ email: stack.admin.email, password: stack.admin.password, next: '/app/' }),
  });
  cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  expect(cookie, `sign-in answered ${res.status}`).toMatch(/=/);
});

afterAll(() => {
  console.log(`app auth fuzz figures: ${JSON.stringify(figures)}`);
});

// A stack started without the app (`app: null`) has no pages to post to.
describe.skipIf(!stack.app)("malformed input to the app's sign-in, sign-up, reset and account pages never gives a 5xx", () => {
  it('every field: NUL, huge, unicode, invalid UTF-8, CRLF, empty', async () => {
    const cases = PAGES.flatMap((p) => p.fields.flatMap((f) => VALUES.map(([what, v]) => ({ p, f, what, v }))));
    await pool(cases, async ({ p, f, what, v }) => {
      const rest = p.fields.filter((g) => g !== f).map((g) => `${g}=x`);
      const body = [...Object.entries(p.fixed ?? {}).map(([k, val]) => `${k}=${val}`), ...rest, `${f}=${v}`].join('&');
      await post(p.path, body, URLENCODED, `${f}: ${what}`, p.session);
    });
    expect(problems, problems.join('\n')).toEqual([]);
  }, 300_000);

  it('repeated fields, files for text, many fields, and broken bodies of every media type', async () => {
    const cases: { p: Page; body: string | FormData; type: string | null; what: string }[] = [];
    for (const p of PAGES) {
      const fixed = encode(p.fixed ?? {});
      const all = p.fields.map((f) => `${f}=a&${f}=b`).join('&');
      cases.push({ p, body: `${fixed}&${all}`, type: URLENCODED, what: 'repeated' });
      cases.push({ p, body: `${fixed}&${Array.from({ length: 5_000 }, (_, k) => `f${k}=${k}`).join('&')}`, type: URLENCODED, what: '5000 fields' });
      const files = new FormData();
      for (const [k, v] of Object.entries(p.fixed ?? {})) files.append(k, v);
      for (const f of p.fields) files.append(f, new Blob(['\u0000binary'], { type: 'application/octet-stream' }), 'x.bin');
      cases.push({ p, body: files, type: null, what: 'files' });
      for (const [type, body] of [
        ['multipart/form-data', '--x\r\n'],
        ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nabc'],
        ['multipart/form-data; boundary=x', 'no boundary at all'],
        ['application/json', '{"email": "a@b.c"}'],
        ['application/json', '{'],
        ['text/plain', 'email=a'],
        [URLENCODED, '%%%&&&==='],
        [URLENCODED, '\u0000'],
        ['', 'email=a'],
      ] as const)
        cases.push({ p, body, type: type || null, what: `${type || 'no type'}: ${body.slice(0, 16)}` });
    }
    await pool(cases, ({ p, body, type, what }) => post(p.path, body, type, what, p.session));
    expect(problems, problems.join('\n')).toEqual([]);
  }, 300_000);

  it('a signed-in name change with every odd value, then put back (the session really is signed in)', async () => {
    const me = await fetch(`${stack.regions.eu.api}/auth/me`, { headers: { authorization: `Session ${decodeURIComponent(cookie.split('=')[1]!)}` } });
    const before = me.ok ? ((await me.json()) as { user: { firstname: string; lastname: string } }).user : null;
    await pool(VALUES, ([what, v]) => post('/app/account', `intent=name&firstname=${v}&lastname=${v}`, URLENCODED, `name: ${what}`, true));
    expect(before, 'the session cookie opens /auth/me').not.toBeNull();
    const restored = await post(
      '/app/account',
      encode({ intent: 'name', firstname: before!.firstname, lastname: before!.lastname }),
      URLENCODED,
      'restore',
      true,
    );
    expect(restored.headers.get('location') ?? '').not.toMatch(/login/);
    expect(restored.status).toBeLessThan(400);
    expect(problems, problems.join('\n')).toEqual([]);
    expect(figures.requests).toBeGreaterThan(VALUES.length);
  }, 120_000);
});
