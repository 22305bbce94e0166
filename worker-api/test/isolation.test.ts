/**
 * The isolation suite: two organizations full of resources, and every operation of the OpenAPI
 * document called by organization A (its all-permissions key and an admin's session) with B's ids in
 * the path, and B's ids in each relationship and id member of the body. No answer may be a success,
 * a 5xx, or hold anything of B's (its ids other than the ones the caller sent, or its marker, which
 * every name of B's resources carries). Calls that name nothing of B's (lists, creates of A's own)
 * may succeed but must not show B either. Deletes run last; at the end every resource of B's is
 * still there, unchanged. The figures are printed for bench/SECURITY-REPORT.md.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, type CallOptions } from './fixtures.ts';
import { createApp } from '../src/app.ts';
import { expectJsonApiDocument } from './jsonapi-schema.ts';
import {
  baseBody,
  buildWorld,
  fillPath,
  jsonApiParts,
  memberKind,
  openApiDocument,
  operations,
  paramKinds,
  renderToken,
  type IdKind,
  type Operation,
  type World,
} from './route-catalog.ts';

interface Case {
  op: Operation;
  path: string;
  body: unknown;
  /** The call names something of B's: it must not succeed. */
  namesOther: boolean;
  /** B's ids the caller put in the request (an error may quote them back). */
  sent: string[];
  what: string;
}

let A: World;
let B: World;
let doc: any;
let ops: Operation[] = [];
const figures = { operations: 0, requests: 0, status5xx: 0, crossTenantReads: 0, crossTenantWrites: 0 };
const failures: string[] = [];

/** B's ids and marker that appear in a text, leaving out what the caller sent itself. */
function leaks(text: string, sent: string[]) {
  const found = B.allIds.filter((id) => !sent.includes(id) && text.includes(id));
  if (text.includes(B.marker) || text.toLowerCase().includes(B.marker.toLowerCase())) found.push(`marker ${B.marker}`);
  return found;
}

async function casesFor(op: Operation): Promise<Case[]> {
  const kinds = paramKinds(op);
  // Public operations are opened by a token of A's own (its sharing link, a print view of its
  // organization); every other parameter names B's resource.
  const { path, ids } = await fillPath(op, async (k) =>
    k === 'link_token' ? A.linkToken : k === 'render_token' ? renderToken(A.org.organization.id, B.ids.dashboards) : B.ids[k as IdKind],
  );
  const pathNamesOther = kinds.some((k) => k !== 'link_token');
  // A print view's token names B's dashboard inside it: an answer may quote that id back.
  const sentInPath = [...Object.values(ids).filter((v) => B.allIds.includes(v)), ...(kinds.includes('render_token') ? [B.ids.dashboards] : [])];
  const out: Case[] = [];
  const base = await baseBody(doc, op, A, ids);
  out.push({ op, path, body: base, namesOther: pathNamesOther, sent: sentInPath, what: 'path' });
  if (!op.body) return out;
  // The body's references, one at a time, pointed at B's resources (on A's own path where the path names a resource).
  const own = pathNamesOther
    ? await fillPath(op, (k) =>
        k === 'link_token' ? A.linkToken : k === 'render_token' ? renderToken(A.org.organization.id, A.ids.dashboards) : A.ids[k as IdKind],
      )
    : { path, ids };
  const ownBase = await baseBody(doc, op, A, own.ids);
  if (op.body.kind === 'jsonapi') {
    const parts = jsonApiParts(doc, op);
    for (const r of parts.relationships) {
      const body = structuredClone(ownBase) as { data: { relationships?: Record<string, unknown> } };
      const id = B.ids[r.type];
      if (!id) throw new Error(`${op.method} ${op.path}: relationship ${r.name} of unknown type ${r.type}`);
      body.data.relationships = { ...body.data.relationships, [r.name]: { data: r.many ? [{ type: r.type, id }] : { type: r.type, id } } };
      out.push({ op, path: own.path, body, namesOther: true, sent: [id], what: `relationship ${r.name}` });
    }
    if ('permissions' in parts.attributes) {
      // A key's grant restricted to B's dashboard.
      const body = structuredClone(ownBase) as { data: { attributes: Record<string, unknown> } };
      body.data.attributes.permissions = [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: B.ids.dashboards }] }];
      out.push({ op, path: own.path, body, namesOther: true, sent: [B.ids.dashboards], what: 'grant on B' });
    }
  } else {
    for (const name of Object.keys(op.body.schema.properties ?? {})) {
      const m = memberKind(name);
      if (!m) continue;
      const body = { ...(ownBase as Record<string, unknown>), [name]: m.many ? [B.ids[m.kind]] : B.ids[m.kind] };
      out.push({ op, path: own.path, body, namesOther: true, sent: [B.ids[m.kind]], what: `member ${name}` });
    }
  }
  return out;
}

async function run(c: Case, who: 'key' | 'session') {
  const o: CallOptions = c.op.public ? {} : who === 'key' ? { key: A.key } : { session: A.session };
  const jsonapi = c.op.body?.kind === 'jsonapi';
  const res = await call(c.path, {
    ...o,
    method: c.op.method,
    ...(c.body !== undefined ? { body: c.body, contentType: jsonapi ? 'application/vnd.api+json' : 'application/json' } : {}),
  });
  figures.requests++;
  const label = `${c.op.method} ${c.op.path} [${c.what}, ${c.op.public ? 'public' : who}] → ${res.status}`;
  const text = typeof res.json === 'string' ? res.json : JSON.stringify(res.json ?? '');
  if (res.status >= 500) {
    figures.status5xx++;
    failures.push(`${label}: ${text.slice(0, 300)}`);
  }
  const leaked = leaks(text, c.sent);
  if (leaked.length) {
    figures.crossTenantReads++;
    failures.push(`${label} shows B's ${leaked.join(', ')}`);
  }
  if (c.namesOther && res.status < 300) {
    figures.crossTenantWrites++;
    failures.push(`${label}: succeeded on B's resource: ${text.slice(0, 300)}`);
  }
  if (res.status >= 400) {
    try {
      expectJsonApiDocument(res.json);
    } catch (e) {
      failures.push(`${label}: not a JSON:API error document: ${text.slice(0, 200)}`);
    }
  }
}

beforeAll(async () => {
  doc = await openApiDocument();
  ops = await operations();
  [A, B] = [await buildWorld('isoa'), await buildWorld('isob')];
}, 120_000);

describe('isolation between organizations, every route of the OpenAPI document', () => {
  it('knows the kind of every path parameter (a new route with an unknown one fails here)', () => {
    expect(ops.length).toBeGreaterThan(100);
    for (const op of ops) expect(() => paramKinds(op), `${op.method} ${op.path}`).not.toThrow();
  });

  it('every route the app serves is in the OpenAPI document, or listed here as outside it', () => {
    // Outside the public document: the service's own routes, and the signed-in user's own account calls of
    // the web app (D31), which name no resource by id (their tokens are the caller's own secrets).
    const OUTSIDE = [
      /^\/health$/,
      /^\/bench\//,
      /^\/openapi\.json$/,
      /^\/auth\/(me|password|session|sessions|sessions\/others|sessions\/two-factor|two-factor|two-factor\/confirm|two-factor\/disable|password-resets)$/,
      /^\/auth\/(password-resets|invitations)\/\{token\}$/,
      // Single sign-on of the web app (D57): the caller's own organization (session) or a one-time attempt.
      /^\/auth\/sso\/(start|oidc\/callback|saml\/acs|saml\/metadata|connection)$/,
      // A running agent's WebSocket (D50): it names its agent and proves it with the agent's own secret.
      /^\/agent\/connect$/,
      // Organization-wide security (D65–D66): an admin's session, scoped to its organization (src/auth/org-security.test.ts).
      /^\/auth\/(organization\/security|audit-log|users\/\{id\}\/two-factor\/reset)$/,
    ];
    const documented = new Set(ops.map((o) => `${o.method} ${o.path}`));
    const missing = createApp()
      .routes.filter((r) => r.method !== 'ALL')
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
      .filter((r) => !documented.has(r) && !OUTSIDE.some((re) => re.test(r.split(' ')[1]!)));
    expect([...new Set(missing)], 'routes neither documented nor listed as outside the document').toEqual([]);
  });

  it("never lets A read, change or use B's resources, by key or by session", async () => {
    const cases: Case[] = [];
    for (const op of ops) cases.push(...(await casesFor(op)));
    figures.operations = ops.length;
    // Deletes last, so every other call still finds B's resources if isolation ever failed.
    const ordered = [...cases.filter((c) => c.op.method !== 'DELETE'), ...cases.filter((c) => c.op.method === 'DELETE')];
    for (const c of ordered) {
      await run(c, 'key');
      if (!c.op.public) await run(c, 'session');
    }
    console.log(`isolation figures: ${JSON.stringify(figures)}`);
    expect(failures, failures.join('\n')).toEqual([]);
    expect(figures.requests).toBeGreaterThan(ops.length);
  }, 180_000);

  it("leaves every resource of B's as it was", async () => {
    for (const [kind, id] of Object.entries(B.ids) as [IdKind, string][]) {
      const path = kind === 'invitations' ? `/users/${id}` : `/${kind}/${id}`;
      const res = await call(path, kind === 'api_keys' ? { session: B.session } : { key: B.key });
      expect(res.status, `${path} → ${JSON.stringify(res.json)}`).toBe(200);
      const attrs = res.json.data?.attributes ?? {};
      const name = attrs.name ?? attrs.display_name;
      if (typeof name === 'string' && name.includes(B.marker)) expect(name, path).toMatch(new RegExp(`^${B.marker}[ _]`));
    }
  });
});
