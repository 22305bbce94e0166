/**
 * `npx tsx scripts/dev-db.ts <name>`: (re)creates the database cairn_dev_<name> on the local server
 * (or DATABASE_URL's server), migrates it, makes its sample database cairn_dev_<name>_sample (the shop and
 * the login role cairn_sample, D32) and prints the metadata database's URL on stdout (the sample URL goes
 * to stderr; the workers' test config derives it from DATABASE_URL by itself). For running one
 * workspace's suite by hand: `DATABASE_URL=$(npx tsx scripts/dev-db.ts me) npx vitest run -r worker-api`.
 */
import { migrate } from '@cairn/db/migrate';
import { ensureSampleDatabase, sampleDatabaseName } from '@cairn/db/sample-shop/setup';
import { createDatabase, dropDatabase, LOCAL_POSTGRES_URL, withPassword } from './lib/postgres.ts';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]{1,30}$/.test(name)) {
  console.error('usage: tsx scripts/dev-db.ts <name: a-z 0-9 _>');
  process.exit(2);
}
const admin = withPassword(process.env.DATABASE_URL?.trim() || LOCAL_POSTGRES_URL);
const db = `cairn_dev_${name}`;
await dropDatabase(admin, db).catch(() => {});
await dropDatabase(admin, sampleDatabaseName(db)).catch(() => {});
const url = await createDatabase(admin, db);
await migrate(url);
const sample = await ensureSampleDatabase(url);
process.stderr.write(`SAMPLE_DATABASE_URL=${sample.url}\n`);
process.stdout.write(url + '\n');
