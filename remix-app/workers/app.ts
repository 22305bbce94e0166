import { createRequestHandler } from 'react-router';
import type { AppEnv, WorkerContext } from '../app/lib/env.server.ts';
import { csrfProblem, csrfRefusal, isProtectedPath, SAML_ACS_PATH } from '../app/lib/csrf.server.ts';
import { samlAcsPost, type SsoFailurePage } from '../app/lib/sso.server.ts';

declare module 'react-router' {
  export interface AppLoadContext {
    cloudflare: { env: AppEnv; ctx: WorkerContext };
    /** Set only by the SAML ACS handler below, for the page that shows the refusal. */
    ssoFailure?: SsoFailurePage;
  }
}

const requestHandler = createRequestHandler(() => import('virtual:react-router/server-build'), import.meta.env.MODE);

// The docs search insights store (see workers/docs-insights.ts).
export { DocsInsights } from './docs-insights.ts';

export default {
  async fetch(request: Request, env: AppEnv, ctx: WorkerContext): Promise<Response> {
    const url = new URL(request.url);
    // The SAML assertion consumer service: a cross-site POST by design, answered here before React
    // Router's action origin check (ARCHITECTURE D63). A refusal is drawn by the route's page (a GET).
    if (url.pathname === SAML_ACS_PATH && request.method === 'POST') {
      const out = await samlAcsPost(request, { cloudflare: { env, ctx } });
      if (out instanceof Response) return out;
      const page = new Request(url, {
        method: 'GET',
        headers: { accept: 'text/html', ...(request.headers.get('user-agent') ? { 'user-agent': request.headers.get('user-agent')! } : {}) },
      });
      return requestHandler(page, { cloudflare: { env, ctx }, ssoFailure: out });
    }
    // Every action of the app and of the public link pages: same-origin requests only (lib/csrf.server.ts).
    if (isProtectedPath(url.pathname)) {
      const problem = csrfProblem(request);
      if (problem) return csrfRefusal(problem);
    }
    return requestHandler(request, { cloudflare: { env, ctx } });
  },
};
