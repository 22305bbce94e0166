import { createRequestHandler } from 'react-router';
import type { AppEnv, WorkerContext } from '../app/lib/env.server.ts';
import { csrfProblem, csrfRefusal, isProtectedPath } from '../app/lib/csrf.server.ts';

declare module 'react-router' {
  export interface AppLoadContext {
    cloudflare: { env: AppEnv; ctx: WorkerContext };
  }
}

const requestHandler = createRequestHandler(
  () => import('virtual:react-router/server-build'),
  import.meta.env.MODE,
);

// The docs search insights store (see workers/docs-insights.ts).
export { DocsInsights } from './docs-insights.ts';

export default {
  async fetch(request: Request, env: AppEnv, ctx: WorkerContext): Promise<Response> {
    // Every action of the app and of the public link pages: same-origin requests only (lib/csrf.server.ts).
    if (isProtectedPath(new URL(request.url).pathname)) {
      const problem = csrfProblem(request);
      if (problem) return csrfRefusal(problem);
    }
    return requestHandler(request, { cloudflare: { env, ctx } });
  },
};
