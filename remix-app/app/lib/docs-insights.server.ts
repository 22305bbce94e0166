/**
 * Docs search insights, server side: `POST /docs-insights` checks a batch of events from the search
 * modal and hands it to the `DocsInsights` Durable Object (workers/docs-insights.ts), which keeps daily
 * counts in its SQLite storage; the admin report reads them back.
 *
 * The endpoint is public (the docs are), so a batch is bounded: at most 16 KB, 20 events, queries of
 * at most 512 characters, routes that are docs paths. Nothing about the reader is stored.
 */
const MAX_BODY_BYTES = 16 * 1024;
const MAX_EVENTS = 20;
const MAX_QUERY = 512;
const MAX_ROUTE = 300;
const MAX_RESULTS = 8;

export type StoredEvent = { type: 'view'; query: string; results: number } | { type: 'click'; query: string; route: string; position: number };

export interface InsightsProblem {
  status: number;
  code: string;
  title: string;
  detail: string;
  source?: { pointer?: string; header?: string };
}

export function problemResponse(p: InsightsProblem, extraHeaders: Record<string, string> = {}): Response {
  return new Response(
    JSON.stringify({ errors: [{ status: String(p.status), code: p.code, title: p.title, detail: p.detail, ...(p.source ? { source: p.source } : {}) }] }),
    {
      status: p.status,
      headers: { 'Content-Type': 'application/vnd.api+json', 'Cache-Control': 'no-store', ...extraHeaders },
    },
  );
}

const invalid = (pointer: string, detail: string): InsightsProblem => ({
  status: 422,
  code: 'invalid_attribute',
  title: 'Unprocessable',
  detail,
  source: { pointer },
});

/** Lower case, one space between words, trimmed. */
export function normalizeQuery(query: string): string {
  return query.replace(/\s+/g, ' ').trim().toLowerCase();
}

function isRoute(v: unknown): v is string {
  return typeof v === 'string' && v.length <= MAX_ROUTE && /^\/[^\s]*$/.test(v) && !v.startsWith('//');
}

const int = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** The events of a parsed body, or the first problem found. */
export function parseEvents(body: unknown): { events: StoredEvent[] } | { problem: InsightsProblem } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { problem: invalid('', 'The body must be an object with an "events" list.') };
  const extra = Object.keys(body).filter((k) => k !== 'events');
  if (extra.length) return { problem: { ...invalid(`/${extra[0]}`, `Unknown member "${extra[0]}".`), code: 'unknown_attribute' } };
  const list = (body as { events?: unknown }).events;
  if (!Array.isArray(list) || list.length === 0) return { problem: invalid('/events', '"events" must be a non-empty list.') };
  if (list.length > MAX_EVENTS) return { problem: invalid('/events', `At most ${MAX_EVENTS} events per request.`) };
  const events: StoredEvent[] = [];
  for (let i = 0; i < list.length; i++) {
    const e = list[i] as Record<string, unknown> | null;
    const at = `/events/${i}`;
    if (!e || typeof e !== 'object') return { problem: invalid(at, 'An event must be an object.') };
    if (typeof e.query !== 'string' || !normalizeQuery(e.query) || e.query.length > MAX_QUERY) {
      return { problem: invalid(`${at}/query`, `"query" must be a non-blank string of at most ${MAX_QUERY} characters.`) };
    }
    const query = normalizeQuery(e.query);
    if (e.type === 'view') {
      if (!int(e.results, 0, MAX_RESULTS)) return { problem: invalid(`${at}/results`, `"results" must be an integer from 0 to ${MAX_RESULTS}.`) };
      if (e.routes !== undefined && (!Array.isArray(e.routes) || e.routes.length > MAX_RESULTS || !e.routes.every(isRoute))) {
        return { problem: invalid(`${at}/routes`, `"routes" must be a list of at most ${MAX_RESULTS} site paths.`) };
      }
      events.push({ type: 'view', query, results: e.results as number });
    } else if (e.type === 'click') {
      if (!isRoute(e.route)) return { problem: invalid(`${at}/route`, '"route" must be a path of this site (starting with "/").') };
      if (!int(e.position, 1, MAX_RESULTS)) return { problem: invalid(`${at}/position`, `"position" must be an integer from 1 to ${MAX_RESULTS}.`) };
      events.push({ type: 'click', query, route: e.route as string, position: e.position as number });
    } else {
      return { problem: invalid(`${at}/type`, '"type" must be "view" or "click".') };
    }
  }
  return { events };
}

/** Reads and checks a `POST /docs-insights` request: the events, or the error answer to send. */
export async function readInsightsRequest(request: Request): Promise<{ events: StoredEvent[] } | { response: Response }> {
  if (request.method !== 'POST') {
    return {
      response: problemResponse(
        { status: 405, code: 'method_not_allowed', title: 'Method Not Allowed', detail: `${request.method} is not allowed here; use POST.` },
        { Allow: 'POST' },
      ),
    };
  }
  const type = (request.headers.get('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
  // sendBeacon sends text/plain when given a string; the modal sends a JSON blob, but accept both.
  if (type !== 'application/json' && type !== 'text/plain') {
    return {
      response: problemResponse({
        status: 415,
        code: 'unsupported_media_type',
        title: 'Unsupported Media Type',
        detail: 'Send the events as application/json.',
        source: { header: 'Content-Type' },
      }),
    };
  }
  const declared = Number(request.headers.get('Content-Length') ?? '0');
  if (declared > MAX_BODY_BYTES) return { response: tooLarge() };
  const text = await request.text();
  if (new TextEncoder().encode(text).length > MAX_BODY_BYTES) return { response: tooLarge() };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { response: problemResponse({ status: 400, code: 'malformed_json', title: 'Bad Request', detail: 'The body is not valid JSON.' }) };
  }
  const parsed = parseEvents(body);
  return 'problem' in parsed ? { response: problemResponse(parsed.problem) } : parsed;
}

function tooLarge(): Response {
  return problemResponse({ status: 400, code: 'bad_request', title: 'Bad Request', detail: `The body may hold at most ${MAX_BODY_BYTES} bytes.` });
}

// ---- the report ----

export interface InsightsReport {
  days: number;
  since: string;
  totals: { searches: number; noResults: number; clicks: number };
  topQueries: { query: string; searches: number; noResults: number; clicks: number }[];
  noResultQueries: { query: string; searches: number }[];
  topPages: { route: string; clicks: number }[];
}

/** The UTC day of a time, `YYYY-MM-DD`. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Who may read the report: a signed-in admin; where DOCS_INSIGHTS_ORGANIZATIONS lists organization
 * ids, only admins of those (the docs are shared by every organization of a deployment, so their
 * search log belongs to whoever runs it).
 */
export function mayReadInsights(user: { role: string }, organizationId: string, allowed: string | undefined): boolean {
  if (user.role !== 'admin') return false;
  const list = (allowed ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return list.length === 0 || list.includes(organizationId);
}

// ---- the Durable Object binding ----

interface DurableObjectStubLike {
  fetch(input: string, init?: RequestInit): Promise<Response>;
}
interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: unknown): DurableObjectStubLike;
}

/** The bindings of remix-app/wrangler.jsonc this feature reads. */
export interface InsightsEnv {
  DOCS_INSIGHTS?: DurableObjectNamespaceLike;
  /** Comma-separated organization ids whose admins may read the report (all admins when unset). */
  DOCS_INSIGHTS_ORGANIZATIONS?: string;
}

export function insightsEnv(context: unknown): InsightsEnv {
  return ((context as { cloudflare?: { env?: InsightsEnv } })?.cloudflare?.env ?? {}) as InsightsEnv;
}

/** The one insights object of the deployment, or null when the binding is missing. */
function insightsStore(env: InsightsEnv): DurableObjectStubLike | null {
  const ns = env.DOCS_INSIGHTS;
  return ns ? ns.get(ns.idFromName('docs')) : null;
}

const STORE = 'https://docs-insights.internal';

export async function recordEvents(env: InsightsEnv, events: StoredEvent[]): Promise<Response> {
  const store = insightsStore(env);
  if (!store) return problemResponse({ status: 503, code: 'service_unavailable', title: 'Unavailable', detail: 'Search insights are not configured here.' });
  const res = await store.fetch(`${STORE}/record`, { method: 'POST', body: JSON.stringify({ events }), headers: { 'Content-Type': 'application/json' } });
  if (!res.ok)
    return problemResponse({ status: 503, code: 'service_unavailable', title: 'Unavailable', detail: 'Search insights could not be stored; try again later.' });
  return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
}

export async function loadReport(env: InsightsEnv, days: number): Promise<InsightsReport | null> {
  const store = insightsStore(env);
  if (!store) return null;
  const res = await store.fetch(`${STORE}/report?days=${days}`);
  if (!res.ok) throw new Error(`The insights store answered ${res.status}.`);
  return (await res.json()) as InsightsReport;
}
