/**
 * `npm run db:sample`: makes (or repairs) the sample database next to DATABASE_URL's metadata database:
 * `<name>_sample` with the sample shop, the login role cairn_sample and its grants (sample-shop/setup.ts,
 * ARCHITECTURE D32). Run it as a user that may create databases and roles, after `npm run db:migrate`.
 * SAMPLE_DATABASE_PASSWORD sets the role's password (required for a server that is not on this machine).
 * Prints the sample database's URL: the API workers' SAMPLE_DB Hyperdrive connection string.
 */
import { ensureSampleDatabase } from '../sample-shop/setup.ts';
import { redactUrl, resolveDatabaseUrl } from '../dev-config.ts';

async function main(): Promise<number> {
  let url: string;
  try {
    url = resolveDatabaseUrl();
  } catch (err) {
    console.error((err as Error).message);
    return 1;
  }
  const password = process.env.SAMPLE_DATABASE_PASSWORD?.trim() || undefined;
  const host = new URL(url).hostname;
  if (!password && !['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) {
    console.error('Set SAMPLE_DATABASE_PASSWORD to the password the role cairn_sample should have (the default is only for local servers).');
    return 2;
  }
  try {
    const sample = await ensureSampleDatabase(url, { password });
    console.error(
      `Sample database ${sample.database} is ready (${sample.shop.created ? 'shop loaded' : 'shop already there'}); ` +
        `CONNECT on ${sample.metadataDatabase} is no longer granted to PUBLIC.`,
    );
    console.error(`Its connection string (the SAMPLE_DB Hyperdrive): ${redactUrl(sample.url)}`);
    if (process.argv.includes('--print-url')) console.log(sample.url);
  } catch (err) {
    console.error(`Setting up the sample database next to ${redactUrl(url)} failed: ${(err as Error).message}`);
    return 1;
  }
  return 0;
}

process.exitCode = await main();
