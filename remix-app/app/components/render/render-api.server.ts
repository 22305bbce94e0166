/**
 * The print view's way to the API: `POST /public/render/{token}[/status]` over the API service binding,
 * with no key and no session — the render token in the address is the credential, verified by the API.
 */
import type { AppLoadContext } from 'react-router';
import { API_ORIGIN, callApi, type ApiResult } from '../../lib/api.server';
import { getEnv } from '../../lib/env.server';

export function renderApiCall<T>(context: AppLoadContext, token: string, rest = ''): Promise<ApiResult<T>> {
  return callApi<T>(
    getEnv(context),
    new Request(`${API_ORIGIN}/public/render/${encodeURIComponent(token)}${rest}`, {
      method: 'POST',
      headers: { Accept: 'application/json' },
    }),
  );
}
