import type { AppLoadContext } from 'react-router';

/** A service binding as the app uses it (a subset of Cloudflare's `Fetcher`). */
export interface ServiceBinding {
  fetch(input: Request | string, init?: RequestInit): Promise<Response>;
}

/** Bindings and vars declared in remix-app/wrangler.jsonc. */
export interface AppEnv {
  /** cairn-api-eu */
  API: ServiceBinding;
  /** cairn-data-eu */
  DATA: ServiceBinding;
  APP_BASE?: string;
  API_DOCS_PATH?: string;
  PRODUCT_NAME?: string;
}

export interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
}

export function getEnv(context: AppLoadContext): AppEnv {
  const env = context.cloudflare?.env;
  if (!env?.API || !env?.DATA) {
    throw new Response('The app worker is missing its API or DATA service binding.', { status: 500 });
  }
  return env;
}
