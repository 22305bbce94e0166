/**
 * The whole local stack, each region on its own database (D53): dev seed, secrets, the web app build,
 * four workers (api/data × eu/us) and the app under `wrangler dev`, each answering HTTP before this resolves.
 * Used by `npm start`, `npm test` (on free ports and a throwaway state dir) and `npm run bench`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Region } from '@cairn/core';
import { appBuildReason, buildApp, APP_WRANGLER_JSON } from './app-build.ts';
import { waitForHttp } from './http.ts';
import type { Watched } from './health.ts';
import { say, warn } from './log.ts';
import { REPO_ROOT, WRANGLER_BIN } from './paths.ts';
import { assertPortsFree, findFreeBlock, findFreePort } from './ports.ts';
import { ensureDatabase, withDatabase, withPassword } from './postgres.ts';
import type { Child, Supervisor } from './procs.ts';
import { loadOrCreateSecrets } from './secrets.ts';
import { startMailCatcher } from './smtp-catcher.ts';
import { startRendererProcess } from './renderer.ts';

/** `.cairn/dev.json` and `.cairn/test-stack.json` (contracts.md). `docs`/`app` are null with `--no-app`. */
export interface StackFile {
  docs: string | null;
  app: string | null;
  /** Each region's servers and its own metadata database (D53: the EU one is `database_url`). */
  regions: Record<Region, { api: string; data: string; database_url: string }>;
  api_key: string;
  admin: { email: string; password: string };
  database_url: string;
  /** The sample datasource's database, as the login role cairn_sample (D32): the API workers' SAMPLE_DB. */
  sample_database_url: string;
  organization_id: string;
  /** The SMTP catcher the API workers send through, and its inbox (page and JSON API, smtp-catcher.ts). */
  mail: { smtp_host: string; smtp_port: number; inbox: string };
  /** The PDF/PNG renderer the API workers call (RENDERER_URL, scripts/lib/renderer.ts); null with `--no-app`. */
  renderer: string | null;
}

/** Sender of the stack's mail (the API workers' MAIL_FROM). */
const STACK_MAIL_FROM = 'Cairn <no-reply@cairn.local>';
/** The SMTP catcher listens right after the five servers: SMTP on base+5, its inbox on base+6. */
const MAIL_OFFSETS = { smtp: 5, inbox: 6 } as const;
/** The renderer of PDF/PNG exports listens after the inbox. */
const RENDERER_OFFSET = 7;

export const DEFAULT_PORT_BASE = 8780;

export interface StackOptions {
  /** Postgres URL of the EU region's database (the demo organization's); the seed runs there. */
  databaseUrl: string;
  /** The US region's database; default `<EU database>_us` on the same server, made and migrated here. */
  usDatabaseUrl?: string;
  /** Holds secrets.json, the dev credentials, wrangler's persisted state and the dev registry. */
  stateDir: string;
  /** Where the stack description is written. */
  stackFile: string;
  /** Dev seed credentials file (default `<stateDir>/dev-credentials.json`). */
  credsFile?: string;
  /** First of five consecutive ports (app, api-eu, data-eu, api-us, data-us). */
  portBase?: number;
  /** true: use exactly portBase…portBase+4 and fail if taken; false: the first free block at or above it. */
  strictPorts?: boolean;
  app?: boolean;
  quiet?: boolean;
  /** wrangler's --log-level (default warn). */
  logLevel?: string;
  /** How long each process may take to answer (default 120 s: five wrangler starts share two cores). */
  readyTimeoutMs?: number;
  /** More `--var NAME:value` for every worker (e.g. the benchmark lifts the rate limit). */
  extraVars?: Record<string, string>;
  /** `--var NAME:value` for the web app only (the e2e suite turns on the docs test hooks). */
  appVars?: Record<string, string>;
  signal?: AbortSignal;
}

interface DevCreds {
  api_key: string;
  admin: { email: string; password: string };
  organization_id: string;
  sample_database_url: string;
}

function asCreds(value: unknown, source: string): DevCreds {
  const v = value as Partial<DevCreds> | null | undefined;
  if (
    v &&
    typeof v.api_key === 'string' &&
    typeof v.organization_id === 'string' &&
    typeof v.admin?.email === 'string' &&
    typeof v.admin?.password === 'string' &&
    typeof v.sample_database_url === 'string'
  ) {
    return {
      api_key: v.api_key,
      organization_id: v.organization_id,
      admin: { email: v.admin.email, password: v.admin.password },
      sample_database_url: v.sample_database_url,
    };
  }
  throw new Error(`${source} did not give {api_key, organization_id, admin:{email,password}, sample_database_url}`);
}

/** Migrates, makes the sample database and creates the demo organization once (db/src/seed.ts). */
async function runDevSeed(databaseUrl: string, credsFile: string): Promise<DevCreds> {
  type SeedModule = { ensureDevSeed?: (url: string, credsPath: string) => Promise<unknown> };
  // `@cairn/db/seed` is the contract; the folder layout (seed/index.ts, seed/dev.ts) is accepted too.
  let seed: SeedModule | null = null;
  let firstError: unknown;
  for (const specifier of ['@cairn/db/seed', '@cairn/db/seed/index', '@cairn/db/seed/dev']) {
    try {
      seed = (await import(specifier)) as SeedModule;
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ERR_MODULE_NOT_FOUND' || !(err as Error).message.includes('seed')) throw err;
      firstError ??= err;
    }
  }
  if (!seed) throw new Error(`cannot load @cairn/db/seed (db/src/seed.ts): ${(firstError as Error).message}`);
  if (typeof seed.ensureDevSeed !== 'function') throw new Error('@cairn/db/seed does not export ensureDevSeed(url, credsPath)');
  mkdirSync(dirname(credsFile), { recursive: true });
  const result = await seed.ensureDevSeed(databaseUrl, credsFile);
  return asCreds(result, 'ensureDevSeed()');
}

interface ProcSpec {
  name: string;
  /** The region whose database the worker's HYPERDRIVE binding reaches (none for the app). */
  region?: Region;
  args: string[];
  url: string;
  /** Path polled for readiness. */
  probe: string;
  accept?: (status: number) => boolean;
}

export interface RunningStack {
  info: StackFile;
  children: Child[];
  /** The workers and the app with their health routes and how to start each again (health.ts watchHealth). */
  watched: Watched[];
}

/** The US region's database next to the EU one: `<name>_us` on the same server (D53). */
function usDatabaseUrlFor(euUrl: string): string {
  const u = new URL(euUrl);
  const name = decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres';
  return withDatabase(euUrl, `${name}_us`);
}

/** Makes the US region's database if it is missing and brings it to the latest migration. */
async function ensureUsDatabase(usUrl: string): Promise<string> {
  const name = decodeURIComponent(new URL(usUrl).pathname.replace(/^\//, ''));
  const url = await ensureDatabase(withDatabase(usUrl, 'postgres'), name);
  const { migrate } = await import('@cairn/db/migrate');
  await migrate(url);
  return url;
}

/** Environment for every wrangler process (no metrics, no network waits, a registry of our own). */
function wranglerEnv(stateDir: string, databaseUrl: string, sampleDatabaseUrl: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_HYPERDRIVE: databaseUrl,
    CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_SAMPLE_DB: sampleDatabaseUrl,
    // Each stack has its own dev registry, so a test stack's app never binds to `npm start`'s workers
    // (they share worker names).
    WRANGLER_REGISTRY_PATH: join(stateDir, 'wrangler-registry'),
    // No browser, no hotkeys: stdin is not a terminal anyway.
    BROWSER: 'none',
    FORCE_COLOR: process.stdout.isTTY ? (process.env.FORCE_COLOR ?? '1') : '0',
  };
}

/** Fails with a readable message when one of the stack's fixed ports is taken. */
export async function assertStackPortsFree(base: number, withApp: boolean): Promise<void> {
  const names = { app: 0, 'api-eu': 1, 'data-eu': 2, 'api-us': 3, 'data-us': 4 };
  const wanted: Record<string, number> = Object.fromEntries(Object.entries(names).map(([n, i]) => [n, base + i]));
  wanted['mail-smtp'] = base + MAIL_OFFSETS.smtp;
  wanted['mail-inbox'] = base + MAIL_OFFSETS.inbox;
  wanted.renderer = base + RENDERER_OFFSET;
  if (!withApp) {
    delete wanted.app;
    delete wanted.renderer;
  }
  await assertPortsFree(wanted, 'Is another `npm start` running? Stop it, or choose other ports with --ports-from N.');
}

export async function startStack(sup: Supervisor, opts: StackOptions): Promise<RunningStack> {
  const withApp = opts.app ?? true;
  const quiet = opts.quiet ?? false;
  const logLevel = opts.logLevel ?? 'warn';
  const timeoutMs = opts.readyTimeoutMs ?? 120_000;
  const databaseUrl = withPassword(opts.databaseUrl);
  mkdirSync(opts.stateDir, { recursive: true });

  // Ports first: failing here costs nothing.
  let base = opts.portBase ?? DEFAULT_PORT_BASE;
  if (opts.strictPorts) {
    await assertStackPortsFree(base, withApp);
  } else {
    base = await findFreeBlock(base, 5);
  }
  const url = (i: number) => `http://127.0.0.1:${base + i}`;
  const usDatabaseUrl = withPassword(opts.usDatabaseUrl ?? usDatabaseUrlFor(databaseUrl));
  const regions: StackFile['regions'] = {
    eu: { api: url(1), data: url(2), database_url: databaseUrl },
    us: { api: url(3), data: url(4), database_url: usDatabaseUrl },
  };
  const appUrl = url(0);
  const smtpPort = opts.strictPorts ? base + MAIL_OFFSETS.smtp : await findFreePort(base + MAIL_OFFSETS.smtp);
  const inboxPort = opts.strictPorts ? base + MAIL_OFFSETS.inbox : await findFreePort(smtpPort + 1);
  const rendererPort = opts.strictPorts ? base + RENDERER_OFFSET : await findFreePort(Math.max(base + RENDERER_OFFSET, inboxPort + 1));

  say('seeding the database (migrations, sample database, demo organization)…');
  const creds = await runDevSeed(databaseUrl, opts.credsFile ?? join(opts.stateDir, 'dev-credentials.json'));
  say("migrating the US region's database…");
  await ensureUsDatabase(usDatabaseUrl);
  const secrets = loadOrCreateSecrets(join(opts.stateDir, 'secrets.json'));

  if (withApp) {
    const reason = appBuildReason();
    if (reason) {
      say(`building the web app (${reason})…`);
      await buildApp({ quiet, signal: opts.signal });
    }
  }

  const mail = await startMailCatcher(sup, { smtpPort, httpPort: inboxPort, quiet, repoRoot: REPO_ROOT });
  const mailVars = ['--var', 'SMTP_HOST:127.0.0.1', '--var', `SMTP_PORT:${mail.smtpPort}`, '--var', `MAIL_FROM:${STACK_MAIL_FROM}`];
  // The renderer opens the app's print views, so it runs only with the app. `--test-scheduled` lets
  // `npm start` fire the API's cron (wrangler dev does not) through /cdn-cgi/handler/scheduled.
  const renderer = withApp ? await startRendererProcess(sup, { port: rendererPort, appOrigin: appUrl, quiet, repoRoot: REPO_ROOT }) : null;
  // The local stack's datasources are on this machine (127.0.0.1): private networks stay allowed here (on in production).
  // Local Hyperdrive opens a backend connection per client, so locally statements go through the DbPool
  // objects (DB_ACCESS=pool); production sends them straight through Hyperdrive (D53).
  // The region environments of wrangler.toml name Cloudflare Browser Rendering (RENDERER=browser, production);
  // locally the API workers use the stack's own Chromium renderer service instead.
  const apiVars = [
    ...mailVars,
    ...(renderer ? ['--var', `RENDERER_URL:${renderer.url}`, '--var', 'RENDERER:service'] : []),
    '--var',
    'BLOCK_PRIVATE_NETWORKS:0',
    '--var',
    'DB_ACCESS:pool',
    '--test-scheduled',
  ];

  const persistTo = join(opts.stateDir, 'wrangler');
  const common = (port: number, inspector: number) => [
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--inspector-port',
    String(inspector),
    '--persist-to',
    persistTo,
    '--log-level',
    logLevel,
    '--show-interactive-dev-session=false',
  ];
  const specs: ProcSpec[] = [];
  let inspector = base + 20;
  for (const region of ['eu', 'us'] as const) {
    const vars = [
      '--var',
      `DATA_TOKEN_SECRET:${secrets.DATA_TOKEN_SECRET[region]}`,
      '--var',
      `SECRET_KEY:${secrets.SECRET_KEY}`,
      '--var',
      `DATA_SERVER_URL:${regions[region].data}`,
      // Both regions' servers, named when an organization of the other region knocks (403 wrong_region).
      ...(['eu', 'us'] as const).flatMap((r) => [
        '--var',
        `API_BASE_URL_${r.toUpperCase()}:${regions[r].api}`,
        '--var',
        `DATA_BASE_URL_${r.toUpperCase()}:${regions[r].data}`,
      ]),
      '--var',
      `APP_URL:${appUrl}`,
      ...Object.entries(opts.extraVars ?? {}).flatMap(([k, v]) => ['--var', `${k}:${v}`]),
    ];
    for (const kind of ['api', 'data'] as const) {
      const port = Number(new URL(regions[region][kind]).port);
      inspector = await findFreePort(inspector + 1);
      specs.push({
        name: `${kind}-${region}`,
        region,
        args: ['dev', '-c', `worker-${kind}/wrangler.toml`, '--env', region, ...common(port, inspector), ...(kind === 'api' ? apiVars : []), ...vars],
        url: regions[region][kind],
        probe: '/health',
        accept: (s) => s === 200,
      });
    }
  }
  if (withApp) {
    inspector = await findFreePort(inspector + 1);
    specs.push({
      name: 'app',
      args: ['dev', '-c', APP_WRANGLER_JSON, ...common(base, inspector), ...Object.entries(opts.appVars ?? {}).flatMap(([k, v]) => ['--var', `${k}:${v}`])],
      url: appUrl,
      probe: '/',
      accept: (s) => s >= 200 && s < 500,
    });
  }

  // Each region's workers reach that region's database only; the sample shop's database is shared (D32).
  const envs = {
    eu: wranglerEnv(opts.stateDir, databaseUrl, creds.sample_database_url),
    us: wranglerEnv(opts.stateDir, usDatabaseUrl, creds.sample_database_url),
  };
  const spawnSpec = (spec: ProcSpec) =>
    sup.spawn(spec.name, process.execPath, [WRANGLER_BIN, ...spec.args], { env: envs[spec.region ?? 'eu'], cwd: REPO_ROOT, quiet });
  const started = specs.map((spec) => ({ spec, child: spawnSpec(spec) }));
  say(`waiting for ${started.map((s) => s.spec.name).join(', ')} to answer…`);
  await Promise.all(
    started.map(async (entry) => {
      const { spec } = entry;
      try {
        await waitForHttp(spec.url + spec.probe, { child: entry.child, timeoutMs, accept: spec.accept, signal: opts.signal });
      } catch (err) {
        // A wrangler that exits during start-up is retried once: with five of them bundling at once on a
        // small machine, or a source file saved mid-bundle, a start can fail without anything being wrong.
        if (entry.child.running || opts.signal?.aborted) throw err;
        warn(`${spec.name} failed to start; retrying once. ${entry.child.describeExit()}`);
        entry.child = spawnSpec(spec);
        await waitForHttp(spec.url + spec.probe, { child: entry.child, timeoutMs, accept: spec.accept, signal: opts.signal });
      }
    }),
  );

  const info: StackFile = {
    docs: withApp ? `${appUrl}/` : null,
    app: withApp ? `${appUrl}/app/` : null,
    regions,
    api_key: creds.api_key,
    admin: creds.admin,
    database_url: databaseUrl,
    sample_database_url: creds.sample_database_url,
    organization_id: creds.organization_id,
    mail: { smtp_host: '127.0.0.1', smtp_port: mail.smtpPort, inbox: mail.url },
    renderer: renderer?.url ?? null,
  };
  mkdirSync(dirname(opts.stackFile), { recursive: true });
  writeFileSync(opts.stackFile, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  const watched: Watched[] = started.map((s) => ({
    name: s.spec.name,
    url: s.spec.url + s.spec.probe,
    accept: s.spec.accept,
    child: s.child,
    respawn: () => spawnSpec(s.spec),
  }));
  return { info, children: started.map((s) => s.child), watched };
}
