/**
 * The malformed-input fuzz: every operation of the OpenAPI document that takes a body gets broken
 * JSON, wrong roots, deep nesting and a huge value, and each of its attributes (JSON:API) or members
 * (actions) gets wrong JSON types, U+0000, long unicode (emoji, right-to-left, lone surrogates) and
 * random JSON values from fast-check (seeded, bounded). Every path parameter gets `%00`, bad
 * percent-encoding, unicode and huge ids; list queries get NUL. No answer may be a 5xx; every
 * refusal is a JSON:API error document, and a refusal of an attribute points at it. The figures
 * are printed for bench/SECURITY-REPORT.md.
 *
 * The sweeps are split over several test files (fuzz-*.test.ts), each calling `registerFuzz` with its
 * part: every file gets a fresh isolate. In the workers test pool one isolate's answers slow down as it
 * serves more requests (measured: /health 4 ms at first, ~60 ms after 250 requests, already on the
 * code before the suites existed, and never back down when idle), so one file of 1,000 requests took
 * five minutes where four files of 250 take well under one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { call, type CallOptions } from './fixtures.ts';
import { expectJsonApiDocument } from './jsonapi-schema.ts';
import {
  baseBody,
  buildWorld,
  fillPath,
  jsonApiParts,
  openApiDocument,
  operations,
  renderToken,
  type IdKind,
  type Operation,
  type World,
} from './route-catalog.ts';

const SEED = 20261126;
const started = Date.now();
let F: World;
let doc: any;
let bodyOps: { op: Operation; path: string; ids: Record<string, string>; base: any; auth: CallOptions }[] = [];
let allOps: Operation[] = [];
const figures = { requests: 0, status5xx: 0, badErrorDocuments: 0, pointerless: 0 };

interface Sent {
  op: Operation;
  path: string;
  auth: CallOptions;
  raw?: string;
  body?: unknown;
  contentType?: string;
  what: string;
}

async function send(s: Sent) {
  const jsonapi = s.op.body?.kind === 'jsonapi';
  const contentType = s.contentType ?? (jsonapi ? 'application/vnd.api+json' : 'application/json');
  const t0 = Date.now();
  const res = await call(s.path, {
    ...s.auth,
    method: s.op.method,
    ...(s.raw !== undefined ? { rawBody: s.raw, contentType } : s.body !== undefined ? { body: s.body, contentType } : {}),
  });
  figures.requests++;
  if (Date.now() - t0 > 3000) console.log(`slow: ${Date.now() - t0} ms ${s.op.method} ${s.path.slice(0, 80)} [${s.what.slice(0, 60)}] → ${res.status}`);
  if (figures.requests % 250 === 0) console.log(`${figures.requests} requests, ${Date.now() - started} ms`);
  return res;
}

/** The common rule: no 5xx, and every 4xx is a JSON:API error document. Returns the problems found. */
function problemsOf(s: Sent, res: { status: number; json: any }): string[] {
  const label = `${s.op.method} ${s.op.path} [${s.what}] → ${res.status}`;
  const out: string[] = [];
  if (res.status >= 500) {
    figures.status5xx++;
    out.push(`${label}: ${JSON.stringify(res.json).slice(0, 300)}`);
  }
  if (res.status >= 400) {
    try {
      expectJsonApiDocument(res.json);
    } catch {
      figures.badErrorDocuments++;
      out.push(`${label}: not a JSON:API error document: ${JSON.stringify(res.json).slice(0, 200)}`);
    }
  }
  return out;
}

/** Where an attribute (JSON:API) or member (action) lives in the body, as a JSON pointer. */
const pointerOf = (op: Operation, name: string) => (op.body!.kind === 'jsonapi' ? `/data/attributes/${name}` : `/${name}`);

function withMember(op: Operation, base: any, name: string, value: unknown) {
  const body = structuredClone(base);
  if (op.body!.kind === 'jsonapi') body.data.attributes = { ...body.data.attributes, [name]: value };
  else body[name] = value;
  return body;
}

/** The writable members of an operation's body with their schemas. */
function membersOf(op: Operation): [string, any][] {
  if (op.body!.kind === 'jsonapi') return Object.entries(jsonApiParts(doc, op).attributes);
  return Object.entries<any>(op.body!.schema.properties ?? {});
}

const stringTyped = (schema: any): boolean => {
  const s = schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
  if (!s) return false;
  if (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'))) return true;
  return [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(stringTyped);
};

const NUL_STRINGS = ['\u0000', 'before\u0000after'];
const UNICODE = [
  '👩‍👩‍👧‍👦🏳️‍🌈'.repeat(300),
  'مرحبا بالعالم \u202Eevil\u202C שלום'.repeat(100),
  '\uD800 lone \uDFFF surrogates',
  'Z̴̡̪͔̈́a̸̢̛͉͌l̵̙͗g̷̰̈́o̶̘͝'.repeat(200),
  '\uFEFF\u200B\u2028\u2029',
];
const WRONG_TYPES: unknown[] = [12345, -0.5, true, [], {}, ['a', 1], { nested: { x: [1] } }, 1e308, 'text'];
const nestedObject = (n: number): unknown => {
  let v: unknown = 1;
  for (let k = 0; k < n; k++) v = { a: v };
  return v;
};
const ODD_VALUES: unknown[] = [
  ...WRONG_TYPES.slice(0, 5),
  UNICODE[0],
  WRONG_TYPES[5],
  UNICODE[1],
  WRONG_TYPES[6],
  UNICODE[2],
  WRONG_TYPES[7],
  UNICODE[3],
  WRONG_TYPES[8],
  UNICODE[4],
  nestedObject(300),
  null,
];
const WRONG_ROOTS: [string, string][] = [
  ['[]', 'array root'],
  ['"text"', 'string root'],
  ['42', 'number root'],
  ['null', 'null root'],
  ['true', 'boolean root'],
  ['['.repeat(20_000) + ']'.repeat(20_000), 'arrays 20000 deep'],
  ['{"a":'.repeat(3_000) + '1' + '}'.repeat(3_000), 'objects 3000 deep'],
  ['{"data": []}', 'data an array'],
  ['{"data": {"type": [], "attributes": []}}', 'attributes an array'],
];
const BROKEN_JSON = ['{', '{"data":', '{"data": {"type": "x",}}', 'nul', '[1, 2', '{"a": "\\x"}', '\u0000', '{} trailing', "{'single': 1}", '{"a": 1}}'];

/** Run `fn` over `items` with a few requests in flight at once. */
async function pool<T>(items: T[], fn: (x: T) => Promise<void>, width = 4) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

export type FuzzPart = 'json' | 'members' | 'random' | 'paths';

/** Registers the suite's setup and the sweeps of one part (see the header). */
export function registerFuzz(part: FuzzPart): void {
  const test = (p: FuzzPart, name: string, fn: () => Promise<void>, timeout?: number) => {
    if (p === part) it(name, fn, timeout);
  };
  beforeAll(async () => {
    doc = await openApiDocument();
    allOps = await operations();
    F = await buildWorld('fuzz');
    const pick = async (k: IdKind | 'link_token' | 'render_token') =>
      k === 'link_token'
        ? F.linkToken
        : k === 'render_token'
          ? await renderToken(F.org.organization.id, F.ids.dashboards)
          : // Report calls use the scratch report: the duplicates the fuzz makes must not pile up on the dashboard it polls.
            k === 'reports'
            ? F.scratchReport
            : F.ids[k];
    for (const op of allOps.filter((o) => o.body)) {
      // Ad hoc runs go to the sample datasource: runs on the suite's own datasource (a host that does not
      // exist) would wait for connections that never come, and slow every later call.
      // The dashboard's own settings change on the scratch dashboard: random refresh rates and prewarm
      // switches on the dashboard the fuzz polls would start background work that slows every later call.
      const { path, ids } = await fillPath(op, (k) =>
        k === 'datasources' && op.path.endsWith('/executions')
          ? F.org.sampleDatasource.id
          : k === 'dashboards' && op.method === 'PATCH'
            ? F.scratchDashboard
            : pick(k),
      );
      const base = await baseBody(doc, op, F, ids);
      // API keys and the organization's settings are managed in the app only: those calls go as the admin's session.
      const auth: CallOptions = op.public ? {} : /^\/(api_keys|organization)\b/.test(op.path) ? { session: F.session } : { key: F.key };
      bodyOps.push({ op, path, ids, base, auth });
    }
    // Deletes and deactivations are left out (no body); sharing-link passwords are left unset so their calls reach validation.
  }, 120_000);

  describe('malformed input never gives a 5xx (every body of the OpenAPI document)', () => {
    it('covers every operation with a body', () => {
      expect(bodyOps.length).toBeGreaterThan(40);
    });

    test(
      'json',
      'broken JSON is a 400 malformed_json; wrong roots and deep nesting are refused',
      async () => {
        const failures: string[] = [];
        // Every body goes through the same two readers: each operation gets two broken texts and one wrong
        // root, taken in turn from the lists, so that every text and every root reaches many operations.
        await pool(
          bodyOps.map((b, i) => ({ ...b, i })),
          async ({ op, path, auth, i }) => {
            for (const raw of [BROKEN_JSON[i % BROKEN_JSON.length]!, BROKEN_JSON[(i + 5) % BROKEN_JSON.length]!]) {
              const s: Sent = { op, path, auth, raw, what: `broken JSON ${JSON.stringify(raw)}` };
              const res = await send(s);
              failures.push(...problemsOf(s, res));
              if (res.status !== 400 || res.json?.errors?.[0]?.code !== 'malformed_json')
                failures.push(`${s.op.method} ${s.op.path} [${s.what}] → ${res.status}, not 400 malformed_json`);
            }
            const [raw, what] = WRONG_ROOTS[i % WRONG_ROOTS.length]!;
            const s: Sent = { op, path, auth, raw, what };
            const res = await send(s);
            failures.push(...problemsOf(s, res));
            if (res.status < 400) failures.push(`${op.method} ${op.path} [${what}] → ${res.status}: accepted`);
          },
        );
        expect(failures, failures.join('\n')).toEqual([]);
      },
      240_000,
    );

    test(
      'json',
      'U+0000 in any string member is a 422 pointing at it',
      async () => {
        const failures: string[] = [];
        const cases = bodyOps.flatMap((b) =>
          membersOf(b.op)
            .filter(([, schema]) => stringTyped(schema))
            .map(([name], k) => ({ ...b, name, v: NUL_STRINGS[k % 2]! })),
        );
        await pool(cases, async ({ op, path, base, auth, name, v }) => {
          const s: Sent = { op, path, auth, body: withMember(op, base, name, v), what: `${name} = ${JSON.stringify(v)}` };
          const res = await send(s);
          failures.push(...problemsOf(s, res));
          const pointer = pointerOf(op, name);
          if (res.status !== 422 || !res.json?.errors?.some((e: any) => e.source?.pointer === pointer)) {
            failures.push(`${op.method} ${op.path} [${s.what}] → ${res.status}, not a 422 at ${pointer}: ${JSON.stringify(res.json).slice(0, 200)}`);
          }
        });
        expect(cases.length).toBeGreaterThan(60);
        expect(failures, failures.join('\n')).toEqual([]);
      },
      240_000,
    );

    test(
      'members',
      'wrong types, long unicode, deep nesting and huge values at every member never give a 5xx, and refusals point somewhere',
      async () => {
        const failures: string[] = [];
        // One value per member, taken in turn from the list (so each value reaches members of every kind).
        const cases = bodyOps.flatMap((b, i) => membersOf(b.op).map(([name], k) => ({ ...b, name, v: ODD_VALUES[(i + k) % ODD_VALUES.length] })));
        await pool(cases, async ({ op, path, base, auth, name, v }) => {
          const s: Sent = { op, path, auth, body: withMember(op, base, name, v), what: `${name} = ${JSON.stringify(v).slice(0, 40)}` };
          const res = await send(s);
          failures.push(...problemsOf(s, res));
          if (res.status === 422 && !res.json?.errors?.every((e: any) => e.source?.pointer || e.source?.parameter)) {
            figures.pointerless++;
            failures.push(`${op.method} ${op.path} [${s.what}] → 422 without a source: ${JSON.stringify(res.json).slice(0, 200)}`);
          }
        });
        // A megabyte in one string member of each body.
        await pool(bodyOps, async ({ op, path, base, auth }) => {
          const name = membersOf(op).find(([, schema]) => stringTyped(schema))?.[0];
          if (!name) return;
          const s: Sent = { op, path, auth, body: withMember(op, base, name, 'x'.repeat(1 << 20)), what: `${name} = 1 MB` };
          failures.push(...problemsOf(s, await send(s)));
        });
        expect(failures, failures.join('\n')).toEqual([]);
      },
      240_000,
    );

    test(
      'random',
      'random JSON values at random members (fast-check, seeded) never give a 5xx',
      async () => {
        const withMembers = bodyOps.filter((b) => membersOf(b.op).length);
        const failures: string[] = [];
        await fc.assert(
          fc.asyncProperty(
            fc.nat({ max: withMembers.length - 1 }),
            fc.nat(),
            fc.oneof(
              fc.jsonValue({ maxDepth: 4 }),
              fc.string({ unit: 'binary', maxLength: 200 }),
              fc.string({ unit: 'grapheme', maxLength: 200 }),
              fc.array(fc.string({ unit: 'binary' }), { maxLength: 20 }),
              fc.dictionary(fc.string({ unit: 'binary', maxLength: 10 }), fc.jsonValue({ maxDepth: 2 })),
            ),
            async (i, j, value) => {
              const b = withMembers[i]!;
              const members = membersOf(b.op);
              const name = members[j % members.length]![0];
              const s: Sent = { ...b, body: withMember(b.op, b.base, name, value), what: `${name} = ${JSON.stringify(value).slice(0, 80)}` };
              const found = problemsOf(s, await send(s));
              failures.push(...found);
              return found.length === 0;
            },
          ),
          { seed: SEED, numRuns: 80, endOnFailure: true },
        );
        expect(failures, failures.join('\n')).toEqual([]);
      },
      240_000,
    );
  });

  describe('malformed path ids and query parameters', () => {
    test(
      'paths',
      '%00 in a path id is a 404; bad encodings, unicode and huge ids are 4xx',
      async () => {
        const failures: string[] = [];
        const VALUES: [string, number | null][] = [
          ['%00', 404],
          ['dsh_%00', 404],
          ['%00%00%00', 404],
          ['%C0%80', null],
          ['%D8%00', null],
          ['%E0%A4%A', null],
          ['%', null],
          ['%F0%9F%92%A9', null],
          ['%E2%80%AE', null],
          ['..%2F..%2Fhealth', null],
          ['a'.repeat(10_000), null],
        ];
        const others = VALUES.slice(3);
        const cases = allOps
          .filter((o) => o.params.length)
          .flatMap((op, i) => [VALUES[i % 3]!, others[i % others.length]!].map(([v, want]) => ({ op, v, want })));
        await pool(cases, async ({ op, v, want }) => {
          const path = op.path.replace(/\{\w+\}/g, v);
          const auth: CallOptions = op.public ? {} : /^\/(api_keys|organization)\b/.test(op.path) ? { session: F.session } : { key: F.key };
          const s: Sent = {
            op,
            path,
            auth,
            what: `path ${v.slice(0, 20)}`,
            body: op.body ? (op.body.kind === 'jsonapi' ? { data: { type: 'x' } } : {}) : undefined,
          };
          const res = await send(s);
          failures.push(...problemsOf(s, res));
          if (want !== null ? res.status !== want : res.status < 400)
            failures.push(`${op.method} ${op.path} [${s.what}] → ${res.status}, wanted ${want ?? '4xx'}`);
        });
        expect(failures, failures.join('\n')).toEqual([]);
      },
      240_000,
    );

    test(
      'paths',
      'NUL and bad encodings in query parameters are refused with a 4xx naming the parameter',
      async () => {
        const failures: string[] = [];
        const lists = allOps.filter((o) => o.method === 'GET');
        const QUERIES = ['include=%00', 'page%5Bsize%5D=%00', 'page%5Bnumber%5D=1%00', 'sort=%00', 'filter%5Bname%5D=%00', 'x=%D8%00', '%00=1'];
        const cases = lists.flatMap((op, i) => [QUERIES[i % QUERIES.length]!, QUERIES[(i + 3) % QUERIES.length]!].map((q) => ({ op, q })));
        const pick = async (k: IdKind | 'link_token' | 'render_token') => (k === 'link_token' ? F.linkToken : k === 'render_token' ? '' : F.ids[k]);
        await pool(cases, async ({ op, q }) => {
          const { path } = await fillPath(op, pick);
          const auth: CallOptions = /^\/(api_keys|organization)\b/.test(op.path) ? { session: F.session } : { key: F.key };
          const s: Sent = { op, path: `${path}?${q}`, auth, what: `query ${q}` };
          const res = await send(s);
          failures.push(...problemsOf(s, res));
          if (q.includes('%00') && (res.status < 400 || !res.json?.errors?.some((e: any) => e.source?.parameter))) {
            failures.push(`${op.method} ${op.path} [${s.what}] → ${res.status}, not a 4xx naming the parameter: ${JSON.stringify(res.json).slice(0, 200)}`);
          }
        });
        expect(failures, failures.join('\n')).toEqual([]);
      },
      240_000,
    );

    test(
      'paths',
      'an invalid tz in parameters is a 422 naming it, on every call that takes parameters',
      async () => {
        const failures: string[] = [];
        const withParameters = bodyOps.filter((b) => b.op.body!.kind === 'action' && 'parameters' in (b.op.body!.schema.properties ?? {}));
        expect(withParameters.length).toBeGreaterThan(5);
        await pool(withParameters, async ({ op, path, base, auth }) => {
          const s: Sent = { op, path, auth, body: { ...base, parameters: { tz: 'Mars/Olympus_Mons' } }, what: 'parameters.tz = Mars/Olympus_Mons' };
          const res = await send(s);
          failures.push(...problemsOf(s, res));
          const named = res.json?.errors?.some((e: any) => e.source?.pointer === '/parameters/tz' && e.detail.includes('Mars/Olympus_Mons'));
          if (res.status !== 422 || !named)
            failures.push(`${op.method} ${op.path} → ${res.status}, not a 422 naming the zone: ${JSON.stringify(res.json).slice(0, 200)}`);
        });
        expect(failures, failures.join('\n')).toEqual([]);
      },
      240_000,
    );

    it('figures', () => {
      console.log(`fuzz figures (${part}): ${JSON.stringify(figures)}`);
      expect(figures.status5xx).toBe(0);
    });
  });
}
