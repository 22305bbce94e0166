/**
 * `npx tsx scripts/dev-db.ts <name>`: (re)creates the database cairn_dev_<name> on the local server
 * (or DATABASE_URL's server), migrates it, loads the sample shop and prints its URL. For running one
 * workspace's suite by hand: `DATABASE_URL=$(npx tsx scripts/dev-db.ts me) npx vitest run -r worker-api`.
 */
import { migrate } from '@cairn/db/migrate';
import { loadSampleShop } from '@cairn/db/sample-shop/index';
import { createDb } from '@cairn/db';
import { createDatabase, dropDatabase, LOCAL_POSTGRES_URL, withPassword } from './lib/postgres.ts';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]{1,30}$/.test(name)) {
  console.error('usage: tsx scripts/dev-db.ts <name: a-z 0-9 _>');
  process.exit(2);
}
const admin = withPassword(process.env.DATABASE_URL?.trim() || LOCAL_POSTGRES_URL);
const db = `cairn_dev_${name}`;
await dropDatabase(admin, db).catch(() => {});
const url = await createDatabase(admin, db);
await migrate(url);
const client = createDb(url, { max: 1 });
try {
  await loadSampleShop(client.sql);
} finally {
  await client.sql.end({ timeout: 5 });
}
process.stdout.write(url + '\n');
