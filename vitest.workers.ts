import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';
import { sampleDatabaseUrl } from './db/src/sample-shop/setup.ts';

/**
 * The vitest config of both workers: tests run inside workerd against a real Postgres. DATABASE_URL
 * names a migrated metadata database (npm test creates one per run).
 * postgres.js needs a password in the URL even where the server trusts local connections.
 * SAMPLE_DATABASE_URL names its sample database (D32: the shop, as the login role cairn_sample); unset,
 * it is the one next to DATABASE_URL (`<name>_sample`), which scripts/dev-db.ts and npm test make.
 */
export function workersTestConfig(bindings: Record<string, string> = {}) {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('Set DATABASE_URL to a migrated test database (npm test does this for you).');
  const withPassword = url.replace(/^postgres(ql)?:\/\/([^:@/]+)@/, 'postgres://$2:postgres@');
  const sampleUrl = process.env.SAMPLE_DATABASE_URL?.trim() || sampleDatabaseUrl(withPassword);
  return defineConfig({
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          hyperdrives: { HYPERDRIVE: withPassword, SAMPLE_DB: sampleUrl },
          bindings: {
            REGION: 'eu',
            DATA_TOKEN_SECRET: 'test-data-token-secret-eu',
            CAIRN_KEEP_CONNECTIONS: '1',
            ...bindings,
          },
        },
      }),
    ],
    test: { include: ['test/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000 },
  });
}
