import type { AppLoadContext } from 'react-router';

/** A service binding as the app uses it (a subset of Cloudflare's `Fetcher`). */
export interface ServiceBinding {
  fetch(input: Request | string, init?: RequestInit): Promise<Response>;
}

/** Bindings and vars declared in remix-app/wrangler.jsonc. */
export interface AppEnv {
  /** cairn-api-eu; through `getEnv`, the API of the caller's organization's region (see `regionRouted`). */
  API: ServiceBinding;
  /** cairn-data-eu; through `getEnv`, the data server of the token's region. */
  DATA: ServiceBinding;
  /** cairn-api-us and cairn-data-us: the other region's servers. */
  API_US?: ServiceBinding;
  DATA_US?: ServiceBinding;
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
  return {
    ...env,
    API: regionRouted({ eu: env.API, us: env.API_US }, 'eu'),
    DATA: regionRouted({ eu: env.DATA, us: env.DATA_US }, 'eu'),
  };
}

/** Which region answered each signed-in user last (by a digest of the session header), so it goes there first. */
const lastRegion = new Map<string, string>();

async function callerKey(req: Request): Promise<string | null> {
  const auth = req.headers.get('Authorization');
  if (!auth?.startsWith('Session ')) return null;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(auth));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

/** Set by the app on calls that carry no credential yet (sign-in): the region to ask first. */
export const REGION_HEADER = 'X-Cairn-Region';

/**
 * The region a call names (D53): a session token `<region>_…`, an API key `cairn_<region>_…`, or the
 * app's own X-Cairn-Region header on a sign-in. Null when it names none (older credentials).
 */
function namedRegion(req: Request): string | null {
  const auth = req.headers.get('Authorization') ?? '';
  const m = /^Session (eu|us)_/.exec(auth) ?? /^Api cairn_(eu|us)_/.exec(auth);
  if (m) return m[1]!;
  const chosen = req.headers.get(REGION_HEADER)?.toLowerCase();
  return chosen === 'eu' || chosen === 'us' ? chosen : null;
}

/** The region a `403 wrong_region` answer names (meta.region), or null for any other answer. */
async function wrongRegionOf(res: Response): Promise<string | null> {
  if (res.status !== 403) return null;
  try {
    const body = (await res.clone().json()) as { errors?: { code?: unknown; meta?: { region?: unknown } }[] };
    const first = body.errors?.[0];
    return first?.code === 'wrong_region' && typeof first.meta?.region === 'string' ? first.meta.region : null;
  } catch {
    return null;
  }
}

/**
 * A binding that talks to the region of the caller's organization. Each region's servers serve only
 * their own region's organizations and answer `403 wrong_region` with `meta.region` for the others
 * (sign-in after a right password, sessions, sharing links, invitations, data tokens and keys); the
 * same request then goes once to that region's binding. A signed-in user's region is remembered by
 * this isolate, so their next calls go straight there. Without that region's binding the 403 stands:
 * a US organization's user is never served by the EU API.
 */
export function regionRouted(bindings: Record<string, ServiceBinding | undefined>, home: string): ServiceBinding {
  // A deployment with one region has nothing to route: the home binding as it is, no digest, no copy.
  if (Object.entries(bindings).every(([region, b]) => region === home || !b)) return bindings[home]!;
  return {
    async fetch(input, init) {
      const req = input instanceof Request ? input : new Request(input, init);
      // A credential that names its region goes straight there (D53); an older one where it went last.
      const named = namedRegion(req);
      const key = named ? null : await callerKey(req);
      const first = named ?? ((key && lastRegion.get(key)) || home);
      // Only a body is used up by the first call; a request without one can be sent again as it is.
      const spare = req.body ? req.clone() : req;
      const res = await (bindings[first] ?? bindings[home]!).fetch(req);
      // A sharing link's token does not name its region (D53): one the first region does not know is
      // asked of the others, so a US link opened through this app works rather than 404 (D61).
      if (res.status === 404 && !named && new URL(req.url).pathname.startsWith('/public/links/')) {
        for (const b of Object.values(bindings)) {
          if (!b || b === (bindings[first] ?? bindings[home])) continue;
          const again = await b.fetch(req.body ? spare.clone() : spare);
          if (again.status !== 404) {
            await res.body?.cancel();
            return again;
          }
          await again.body?.cancel();
        }
        return res;
      }
      const region = await wrongRegionOf(res);
      const other = region && region !== first ? bindings[region] : undefined;
      if (!other) return res;
      await res.body?.cancel();
      const again = await other.fetch(spare);
      if (key && again.status !== 403) {
        lastRegion.set(key, region!);
        if (lastRegion.size > 10_000) lastRegion.delete(lastRegion.keys().next().value!);
      }
      return again;
    },
  };
}
