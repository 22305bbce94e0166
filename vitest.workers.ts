import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

/**
 * The vitest config of both workers: tests run inside workerd against a real Postgres. DATABASE_URL
 * names a migrated database with the sample shop loaded (npm test creates one per run).
 * postgres.js needs a password in the URL even where the server trusts local connections.
 */
export function workersTestConfig(bindings: Record<string, string> = {}) {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('Set DATABASE_URL to a migrated test database (npm test does this for you).');
  const withPassword = url.replace(/^postgres(ql)?:\/\/([^:@/]+)@/, 'postgres://$2:postgres@');
  return defineConfig({
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          hyperdrives: { HYPERDRIVE: withPassword },
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
