/**
 * `npm run deploy` (scripts/deploy.ts): the parts that can be checked without a Cloudflare account —
 * what each worker must declare, the order, and the health checks after a deploy (D53, DEPLOY.md).
 */
import { join } from 'node:path';
import type { Region } from '@cairn/core';
import { REPO_ROOT } from './paths.ts';
import { APP_WRANGLER_JSON } from './app-build.ts';

export interface WorkerPlan {
  name: 'data' | 'api' | 'app';
  config: string;
  /** false for the app: one deployment serves both regions (it keeps no organization data). */
  perRegion: boolean;
  /** Bindings the worker's code reads: a dry run fails when one is not declared. */
  hyperdrive: string[];
  durableObjects: string[];
  services: string[];
  secrets: string[];
  crons: boolean;
}

/** In deploy order: the data server, then the API (it hands out the data server's URL), then the app (bound to both). */
export const WORKERS: WorkerPlan[] = [
  {
    name: 'data',
    config: join(REPO_ROOT, 'worker-data/wrangler.toml'),
    perRegion: true,
    hyperdrive: ['HYPERDRIVE'],
    durableObjects: ['RATE_LIMITER'],
    services: [],
    secrets: ['DATA_TOKEN_SECRET'],
    crons: false,
  },
  {
    name: 'api',
    config: join(REPO_ROOT, 'worker-api/wrangler.toml'),
    perRegion: true,
    hyperdrive: ['HYPERDRIVE', 'SAMPLE_DB'],
    durableObjects: ['RATE_LIMITER', 'DB_POOL', 'DATASOURCE_GATE', 'DASHBOARD_STATUS'],
    services: [],
    secrets: ['DATA_TOKEN_SECRET', 'SECRET_KEY'],
    crons: true,
  },
  {
    name: 'app',
    config: APP_WRANGLER_JSON,
    perRegion: false,
    hyperdrive: [],
    durableObjects: ['DOCS_INSIGHTS'],
    services: ['API', 'DATA', 'API_US', 'DATA_US'],
    secrets: [],
    crons: false,
  },
];

/** The part of wrangler's resolved config this checks (wrangler's `unstable_readConfig`). */
export interface ResolvedConfig {
  name?: string;
  vars?: Record<string, unknown>;
  hyperdrive?: { binding: string; id: string }[];
  durable_objects?: { bindings?: { name: string; class_name: string; script_name?: string }[] };
  migrations?: { tag: string; new_classes?: string[]; new_sqlite_classes?: string[] }[];
  services?: { binding: string; service: string }[];
  triggers?: { crons?: string[] };
  secrets?: { required?: string[] };
}

/** Hyperdrive ids in the repository's config: stand-ins until `wrangler hyperdrive create` gives real ones. */
const PLACEHOLDER_ID = /^0{20,}[0-9a-f]{0,12}$/;

/**
 * What is wrong with one worker's resolved config for `region`: an empty list when it declares
 * everything its code uses. `real` adds what only a real deploy needs (no placeholder ids).
 */
export function configProblems(plan: WorkerPlan, cfg: ResolvedConfig, region: Region | null, real: boolean): string[] {
  const problems: string[] = [];
  const where = `${plan.name}${region ? ` (--env ${region})` : ''}`;
  if (plan.perRegion) {
    const expected = `cairn-${plan.name}-${region}`;
    if (cfg.name !== expected) problems.push(`${where}: the worker is named "${cfg.name}", expected "${expected}"`);
    if (cfg.vars?.REGION !== region) problems.push(`${where}: vars.REGION is "${String(cfg.vars?.REGION)}", expected "${region}"`);
    for (const r of ['EU', 'US']) {
      for (const kind of ['API', 'DATA']) {
        const v = cfg.vars?.[`${kind}_BASE_URL_${r}`];
        if (typeof v !== 'string' || !/^https:\/\//.test(v)) problems.push(`${where}: vars.${kind}_BASE_URL_${r} must be an https URL`);
      }
    }
  }
  for (const b of plan.hyperdrive) {
    const h = cfg.hyperdrive?.find((x) => x.binding === b);
    if (!h) problems.push(`${where}: Hyperdrive binding ${b} is not declared`);
    else if (real && PLACEHOLDER_ID.test(h.id))
      problems.push(`${where}: Hyperdrive ${b} still has the placeholder id ${h.id} (wrangler hyperdrive create, DEPLOY.md)`);
  }
  const migrated = new Set((cfg.migrations ?? []).flatMap((m) => [...(m.new_classes ?? []), ...(m.new_sqlite_classes ?? [])]));
  for (const name of plan.durableObjects) {
    const d = cfg.durable_objects?.bindings?.find((x) => x.name === name);
    if (!d) problems.push(`${where}: Durable Object binding ${name} is not declared`);
    else if (!d.script_name && !migrated.has(d.class_name)) problems.push(`${where}: Durable Object class ${d.class_name} has no migration`);
  }
  for (const name of plan.services) {
    const s = cfg.services?.find((x) => x.binding === name);
    if (!s) problems.push(`${where}: service binding ${name} is not declared`);
  }
  if (plan.crons && !cfg.triggers?.crons?.length) problems.push(`${where}: no cron trigger (the scheduler, src/cron.ts)`);
  const named = new Set(cfg.secrets?.required ?? []);
  for (const s of plan.secrets) if (!named.has(s)) problems.push(`${where}: secret ${s} is not named in secrets.required`);
  return problems;
}

/** The base URLs the health checks call after deploying `region` (from the API worker's vars). */
export function healthTargets(apiVars: Record<string, unknown>, region: Region): { name: string; url: string }[] {
  const R = region.toUpperCase();
  return [
    { name: `data-${region}`, url: `${String(apiVars[`DATA_BASE_URL_${R}`]).replace(/\/+$/, '')}/health` },
    { name: `api-${region}`, url: `${String(apiVars[`API_BASE_URL_${R}`]).replace(/\/+$/, '')}/health` },
  ];
}

/**
 * Asks each health route until it answers `{ ok: true, region }` of the deployed region (a new version
 * takes a few seconds to reach every location), at most `timeoutMs`. Returns the problems left.
 */
export async function checkHealth(targets: { name: string; url: string }[], region: Region, timeoutMs = 60_000): Promise<string[]> {
  const problems: string[] = [];
  for (const t of targets) {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer';
    for (;;) {
      try {
        const res = await fetch(t.url, { signal: AbortSignal.timeout(10_000) });
        const body = (await res.json().catch(() => null)) as { ok?: unknown; region?: unknown } | null;
        if (res.status === 200 && body?.ok === true && body.region === region) {
          last = '';
          break;
        }
        last = `HTTP ${res.status}, ${JSON.stringify(body)}`;
      } catch (err) {
        last = (err as Error).message;
      }
      if (Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    if (last) problems.push(`${t.name}: ${t.url} did not answer {ok:true, region:"${region}"} (${last})`);
  }
  return problems;
}
