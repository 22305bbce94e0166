/** `npm run db:migrate`: applies db/migrations to DATABASE_URL (or .cairn/dev.json's database_url). */
import { migrate } from '../migrate.ts';
import { redactUrl, resolveDatabaseUrl } from '../dev-config.ts';

async function main(): Promise<number> {
  let url: string;
  try {
    url = resolveDatabaseUrl();
  } catch (err) {
    console.error((err as Error).message);
    return 1;
  }
  try {
    await migrate(url);
  } catch (err) {
    console.error(`Migration of ${redactUrl(url)} failed: ${(err as Error).message}`);
    return 1;
  }
  console.log(`Database ${redactUrl(url)} is up to date.`);
  return 0;
}

process.exitCode = await main();
