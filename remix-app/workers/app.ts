import { createRequestHandler } from 'react-router';
import type { AppEnv, WorkerContext } from '../app/lib/env.server.ts';

declare module 'react-router' {
  export interface AppLoadContext {
    cloudflare: { env: AppEnv; ctx: WorkerContext };
  }
}

const requestHandler = createRequestHandler(
  () => import('virtual:react-router/server-build'),
  import.meta.env.MODE,
);

export default {
  async fetch(request: Request, env: AppEnv, ctx: WorkerContext): Promise<Response> {
    return requestHandler(request, { cloudflare: { env, ctx } });
  },
};
