/**
 * The print view's way to the API: `POST /public/render/{token}[/status]` over the API service binding,
 * with no key and no session — the render token in the address is the credential, verified by the API.
 */
import type { AppLoadContext } from 'react-router';
import { problemFrom, type ApiResult } from '../../lib/api.server';
import { getEnv } from '../../lib/env.server';

const API_ORIGIN = 'https://cairn-api.internal';

export async function renderApiCall<T>(context: AppLoadContext, token: string, rest = ''): Promise<ApiResult<T>> {
  let res: Response;
  try {
    res = await getEnv(context).API.fetch(new Request(`${API_ORIGIN}/public/render/${encodeURIComponent(token)}${rest}`, {
      method: 'POST', headers: { Accept: 'application/json' },
    }));
  } catch {
    return { ok: false, problem: { status: 503, code: 'service_unavailable', message: 'The Cairn API is temporarily unavailable.' } };
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (res.ok) return { ok: true, status: res.status, body: parsed as T };
  return { ok: false, problem: problemFrom(res.status, parsed) };
}
