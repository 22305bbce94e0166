/**
 * `npm run deploy -- --env eu|us [--dry-run] [--no-app] [--database-url URL]`: one region to Cloudflare
 * (DEPLOY.md, D53).
 *
 *   1. Every worker's config for the region is checked: each binding its code reads is declared
 *      (Hyperdrive, Durable Objects with migrations, services, cron, named secrets); a real deploy also
 *      refuses the placeholder Hyperdrive ids.
 *   2. Migrations run against the region's own database (--database-url, or CAIRN_DATABASE_URL_EU/_US:
 *      the direct connection string, not Hyperdrive's). A dry run lists the pending ones without applying.
 *   3. `wrangler deploy --env <region>`: the data server, then the API, then the app (one deployment for
 *      both regions; --no-app leaves it). A dry run bundles each with `--dry-run` and uploads nothing.
 *   4. The region's health routes must answer `{ok: true, region}` (skipped by a dry run).
 *
 * Needs CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID for a real deploy.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isRegion, type Region } from '@cairn/core';
import { appBuildReason, buildApp } from './lib/app-build.ts';
import { checkHealth, configProblems, healthTargets, WORKERS, type ResolvedConfig } from './lib/deploy.ts';
import { errorMessage, fail, say } from './lib/log.ts';
import { REPO_ROOT, WRANGLER_BIN } from './lib/paths.ts';
import { redact } from './lib/postgres.ts';

const HELP = `Usage: npm run deploy -- --env eu|us [--dry-run] [--no-app] [--database-url URL]`;

async function readConfig(configPath: string, env: Region | null): Promise<ResolvedConfig> {
  const { unstable_readConfig } = await import('wrangler');
  return unstable_readConfig({ config: configPath, env: env ?? undefined }, { hideWarnings: true }) as unknown as ResolvedConfig;
}

/** Migrations in db/migrations not yet recorded in the database's drizzle journal. */
async function pendingMigrations(url: string): Promise<string[]> {
  const postgres = (await import('postgres')).default;
  const { MIGRATIONS_FOLDER } = await import('@cairn/db/migrate');
  const files = readdirSync(MIGRATIONS_FOLDER)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [t] = await sql`select to_regclass('drizzle.__drizzle_migrations') as t`;
    const applied = t?.t ? Number((await sql`select count(*)::int as n from drizzle.__drizzle_migrations`)[0]!.n) : 0;
    return files.slice(applied);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

function wrangler(args: string[]): void {
  const res = spawnSync(process.execPath, [WRANGLER_BIN, ...args], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  });
  if (res.status !== 0) throw new Error(`wrangler ${args.join(' ')} exited with ${res.status ?? res.signal}`);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      env: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      'no-app': { type: 'boolean', default: false },
      'database-url': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const region = values.env;
  if (!region || !isRegion(region)) {
    fail(`--env must be eu or us\n${HELP}`);
    return 2;
  }
  const dry = values['dry-run'];
  if (!dry && (!process.env.CLOUDFLARE_API_TOKEN || !process.env.CLOUDFLARE_ACCOUNT_ID)) {
    fail('A real deploy needs CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID (DEPLOY.md, step 1); or pass --dry-run.');
    return 2;
  }
  const workers = WORKERS.filter((w) => w.perRegion || !values['no-app']);

  // 1. Configs.
  if (workers.some((w) => w.name === 'app') && appBuildReason()) {
    say(`building the web app (${appBuildReason()})…`);
    await buildApp({ quiet: true });
  }
  const configs = new Map<string, ResolvedConfig>();
  const problems: string[] = [];
  for (const w of workers) {
    const cfg = await readConfig(w.config, w.perRegion ? region : null);
    configs.set(w.name, cfg);
    problems.push(...configProblems(w, cfg, w.perRegion ? region : null, !dry));
  }
  if (problems.length) {
    fail(`the configuration is not ready:\n  ${problems.join('\n  ')}`);
    return 1;
  }
  say(`configs of ${workers.map((w) => w.name).join(', ')} for ${region} declare every binding they use`);

  // 2. Migrations against the region's own database.
  const dbUrl = values['database-url'] ?? process.env[`CAIRN_DATABASE_URL_${region.toUpperCase()}`];
  if (!dbUrl) {
    if (!dry) {
      fail(
        `--database-url (or CAIRN_DATABASE_URL_${region.toUpperCase()}) must name the ${region} region's database: migrations run before the workers change.`,
      );
      return 2;
    }
    say(`dry run: no database URL given, migrations not checked`);
  } else if (dry) {
    const pending = await pendingMigrations(dbUrl);
    say(`dry run: ${pending.length} migration(s) pending on ${redact(dbUrl)}${pending.length ? `: ${pending.join(', ')}` : ''}`);
  } else {
    const { migrate } = await import('@cairn/db/migrate');
    say(`migrating ${redact(dbUrl)}…`);
    await migrate(dbUrl);
  }

  // 3. Workers, in order.
  const outRoot = dry ? mkdtempSync(join(tmpdir(), 'cairn-dry-run-')) : null;
  try {
    for (const w of workers) {
      const args = ['deploy', '-c', w.config, ...(w.perRegion ? ['--env', region] : [])];
      if (outRoot) args.push('--dry-run', '--outdir', join(outRoot, w.name));
      say(`${dry ? 'dry run: bundling' : 'deploying'} ${configs.get(w.name)!.name}…`);
      wrangler(args);
    }
  } finally {
    if (outRoot) rmSync(outRoot, { recursive: true, force: true });
  }

  // 4. Health.
  if (dry) {
    say(
      `dry run: after a deploy, ${healthTargets(configs.get('api')!.vars ?? {}, region)
        .map((t) => t.url)
        .join(' and ')} must answer {ok:true, region:"${region}"}`,
    );
    return 0;
  }
  const left = await checkHealth(healthTargets(configs.get('api')!.vars ?? {}, region), region);
  if (left.length) {
    fail(`deployed, but the health checks failed:\n  ${left.join('\n  ')}`);
    return 1;
  }
  say(`${region} is deployed and healthy`);
  return 0;
}

try {
  process.exitCode = await main();
} catch (err) {
  fail(errorMessage(err));
  process.exitCode = 1;
}
