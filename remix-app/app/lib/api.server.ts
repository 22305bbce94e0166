/**
 * The app's only way to the API: calls go through the `API` service binding with the signed-in user's
 * session token. The API decides every permission and validation question; this module only translates
 * its JSON:API error envelopes into thrown `Response`s (401 → sign-in, other statuses → error boundaries).
 */
import { data, redirect, type AppLoadContext } from 'react-router';
import { getEnv, REGION_HEADER, type AppEnv } from './env.server.ts';
import { clearSessionCookie, loginUrl, readSessionToken } from './session.server.ts';
import { clientAddressHeaders } from './client-address.server.ts';

export const API_ORIGIN = 'https://cairn-api.internal';
/** Where a session that must enrol in two-factor authentication is sent. */
export const TWO_FACTOR_SETUP_PATH = '/app/two-factor-setup';
const JSONAPI = 'application/vnd.api+json';

export interface ApiProblem {
  status: number;
  code: string;
  message: string;
  /** The error's `meta.reason`, where the API gives one (e.g. two_factor_enrolment_required). */
  reason?: string;
}

export type ApiResult<T> = { ok: true; status: number; body: T } | { ok: false; problem: ApiProblem };

/** What error boundaries receive as `error.data` for a thrown API error. */
export interface ErrorPayload {
  code: string;
  message: string;
}

interface CallOptions {
  /** JSON body; sent as application/json (action calls) unless `jsonapi` is set. */
  body?: unknown;
  jsonapi?: boolean;
  /** The region whose API to ask first (sign-in: the region chosen on the page; D53). */
  region?: string;
}

export function problemFrom(status: number, body: unknown): ApiProblem {
  const first = (body as { errors?: { code?: unknown; detail?: unknown; title?: unknown; meta?: { reason?: unknown } }[] } | null)?.errors?.[0];
  const code = typeof first?.code === 'string' ? first.code : `http_${status}`;
  const detail = typeof first?.detail === 'string' && first.detail ? first.detail : undefined;
  const title = typeof first?.title === 'string' && first.title ? first.title : undefined;
  const reason = typeof first?.meta?.reason === 'string' ? first.meta.reason : undefined;
  return { status, code, message: detail ?? title ?? defaultMessage(status), ...(reason ? { reason } : {}) };
}

function defaultMessage(status: number): string {
  if (status === 401) return 'Your session has ended. Please sign in again.';
  if (status === 403) return 'You do not have access to this page.';
  if (status === 404) return 'This page does not exist or was removed.';
  if (status === 429) return 'Too many requests. Please wait a moment and try again.';
  if (status >= 500) return 'The Cairn API is temporarily unavailable. Please try again shortly.';
  return `The request failed with status ${status}.`;
}

async function readBody(res: Response): Promise<unknown> {
  if (res.status === 204) return null;
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { errors: [{ detail: undefined }] };
  }
}

/** One request to the API over its service binding: the status and the parsed body (503 when it cannot be reached). */
export async function fetchApi(env: AppEnv, request: Request): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await env.API.fetch(request);
  } catch {
    return { status: 503, body: { errors: [{ code: 'service_unavailable', detail: defaultMessage(503) }] } };
  }
  return { status: res.status, body: await readBody(res) };
}

/** `fetchApi` as an ApiResult. */
export async function callApi<T>(env: AppEnv, request: Request): Promise<ApiResult<T>> {
  const res = await fetchApi(env, request);
  if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, body: res.body as T };
  return { ok: false, problem: problemFrom(res.status, res.body) };
}

export class ApiClient {
  constructor(
    private readonly env: AppEnv,
    private readonly request: Request,
    private readonly token: string | null,
  ) {}

  /** Calls the API and reports failures as values (for calls whose failure the page shows in place). */
  async call<T>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResult<T>> {
    const res = await this.raw(method, path, opts);
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, body: res.body as T };
    return { ok: false, problem: problemFrom(res.status, res.body) };
  }

  /** The API's status and parsed body as they are (forms read every error of a 422 with its pointer). */
  async raw(method: string, path: string, opts: CallOptions = {}): Promise<{ status: number; body: unknown }> {
    return fetchApi(this.env, this.apiRequest(method, path, opts));
  }

  /** The API's response untouched (binary answers: images, files); rejects when the API cannot be reached. */
  response(method: string, path: string, opts: CallOptions = {}): Promise<Response> {
    return this.env.API.fetch(this.apiRequest(method, path, opts));
  }

  private apiRequest(method: string, path: string, opts: CallOptions): Request {
    const headers = new Headers({ Accept: `${JSONAPI}, application/json` });
    if (this.token) headers.set('Authorization', `Session ${this.token}`);
    // The browser's own, so the sessions it starts say which browser they belong to.
    const userAgent = this.request.headers.get('User-Agent');
    if (userAgent) headers.set('User-Agent', userAgent);
    // The visitor's address as the edge set it, for the API's per-address limits (sign-in lockout).
    for (const [k, v] of Object.entries(clientAddressHeaders(this.request))) headers.set(k, v);
    if (opts.region) headers.set(REGION_HEADER, opts.region);
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers.set('Content-Type', opts.jsonapi ? JSONAPI : 'application/json');
      body = JSON.stringify(opts.body);
    }
    return new Request(API_ORIGIN + path, { method, headers, body });
  }

  /** Calls the API and throws the matching `Response` on failure (for calls the page cannot do without). */
  async get<T>(path: string): Promise<T> {
    return this.unwrap(await this.call<T>('GET', path));
  }

  async send<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
    return this.unwrap(await this.call<T>(method, path, opts));
  }

  unwrap<T>(result: ApiResult<T>): T {
    if (result.ok) return result.body;
    throw this.toResponse(result.problem);
  }

  toResponse(problem: ApiProblem): Response | ReturnType<typeof data<ErrorPayload>> {
    if (problem.status === 401) {
      return redirect(loginUrl(this.request), { headers: { 'Set-Cookie': clearSessionCookie(this.request) } });
    }
    // The organization requires two-factor authentication and this session has none yet (D65).
    if (problem.status === 403 && problem.reason === 'two_factor_enrolment_required') return redirect(TWO_FACTOR_SETUP_PATH);
    const status = problem.status >= 500 ? 503 : problem.status;
    return data<ErrorPayload>({ code: problem.code, message: problem.message }, { status });
  }
}

/** An API client without a session (sign-in). */
export function anonymousApi(request: Request, context: AppLoadContext): ApiClient {
  return new ApiClient(getEnv(context), request, null);
}

/** The signed-in user's API client; without a session cookie the visitor is sent to the sign-in page. */
export function requireApi(request: Request, context: AppLoadContext): ApiClient {
  const token = readSessionToken(request);
  if (!token) throw redirect(loginUrl(request));
  return new ApiClient(getEnv(context), request, token);
}
