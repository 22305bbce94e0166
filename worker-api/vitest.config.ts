import { createRequire, isBuiltin } from 'node:module';
import { fileURLToPath } from 'node:url';
import { mergeConfig } from 'vitest/config';
import { workersTestConfig } from '../vitest.workers.ts';

/**
 * CommonJS dependencies (mysql2 and its helpers) inside the test pool: `require()` is resolved the way
 * Node resolves it (the package's CommonJS entry, not its ESM `module` field, which the pool would hand
 * back as undefined; a package that is not installed throws as in Node, for optional requires), and
 * `require('process')` gets workerd's global process object (the pool's list of workerd built-ins
 * lacks `node:process`). Bundled deployments (wrangler/esbuild) need none of this.
 */
/** Run by vitest.clickhouse.ts, which starts a ClickHouse server for them. */
export const CLICKHOUSE_TESTS = 'src/engine/connectors/clickhouse.test.ts';
/** Run by vitest.sshd.ts, which starts an OpenSSH server for them. */
export const SSHD_TESTS = 'src/engine/connectors/ssh-tunnel.test.ts';

const processShim = fileURLToPath(new URL('./test/shims/process.cjs', import.meta.url));
const missingShim = fileURLToPath(new URL('./test/shims/missing-module.cjs', import.meta.url));
const commonJsRequires = {
  name: 'cairn-commonjs-requires',
  enforce: 'pre' as const,
  resolveId(id: string, importer: string | undefined, opts: { custom?: Record<string, { isRequire?: boolean }> }) {
    if (!opts?.custom?.['node-resolve']?.isRequire || !importer?.includes('/node_modules/')) return null;
    if (id === 'process' || id === 'node:process') return processShim;
    if (isBuiltin(id) || id.startsWith('.') || id.startsWith('/')) return null;
    try {
      return createRequire(importer).resolve(id);
    } catch {
      return missingShim;
    }
  },
};

export default mergeConfig(
  workersTestConfig({
    SECRET_KEY: 'test-secret-key',
    DATA_SERVER_URL: 'http://data.test',
    RATE_LIMIT_RPS: '1000',
    RATE_LIMIT_BURST: '1000',
    // Tests flip keys in the database directly; the isolate's key cache (lib: auth/authenticate.ts)
    // is exercised by the end-to-end suite, which runs with the default.
    AUTH_CACHE_MS: '0',
    // The same for the read cache: every read asks for the organization's version (the cache itself
    // still runs); src/lib/read-cache.test.ts checks the trust window with its own setting.
    READ_CACHE_TRUST_MS: '0',
    POLL_REUSE_MS: '0',
    // Datasource guards (engine/connectors/target-guard.ts): the tests connect to 127.0.0.1, so private
    // networks are allowed here (production turns BLOCK_PRIVATE_NETWORKS on); tests that need it on pass it.
    BLOCK_PRIVATE_NETWORKS: '0',
    // A shorter execution lease than production's 45 s (engine/lease.ts), so src/engine/lease.test.ts
    // can watch a live run renew it; long enough that a busy machine's renewals still arrive in time.
    EXECUTION_LEASE_MS: '10000',
    // Failed job messages are tried again at once (production waits 30 s × attempt: src/jobs/consume.ts).
    JOB_RETRY_DELAY_S: '0',
    // Both database paths run this suite (D53): by default statements go straight through the Hyperdrive
    // binding, as production sends them; CAIRN_DB_ACCESS=pool sends them through the DbPool objects, as
    // the local stack does (npm test runs a part of the suite so).
    DB_ACCESS: process.env.CAIRN_DB_ACCESS === 'pool' ? 'pool' : 'hyperdrive',
  }),
  {
    plugins: [commonJsRequires],
    // The ClickHouse connector's tests need a real clickhouse-server: they run with vitest.clickhouse.ts.
    // Tests live beside what they test (src/**), cross-cutting suites and shared fixtures in test/.
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      globalSetup: ['./vitest.peers.ts'],
      exclude: ['**/node_modules/**', CLICKHOUSE_TESTS, SSHD_TESTS],
    },
  },
);
