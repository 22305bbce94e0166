/**
 * knip: unused files, dependencies and exports (D69). Runs in `npm test` lane A as `knip`.
 * The workers' vitest configs refuse to load without DATABASE_URL; knip only reads them for their
 * test files, so a placeholder is set when none is.
 */
import type { KnipConfig } from 'knip';

process.env.DATABASE_URL ??= 'postgres://knip@127.0.0.1:5432/knip_reads_the_config_only';

const config: KnipConfig = {
  workspaces: {
    '.': {
      // scripts/lib/*-server.ts are started as child processes by path (node --import tsx <file>).
      entry: ['scripts/*.ts', 'scripts/lib/*-server.ts', 'bench/*.ts', 'e2e/**/*.test.ts', 'e2e/screenshots-*.ts', 'e2e/vitest.config.ts', 'vitest.workers.ts'],
      project: ['scripts/**/*.ts', 'bench/**/*.ts', 'e2e/**/*.ts', '*.ts'],
      // Biome runs as a binary from scripts/test.ts; the @types packages type smtp-server and mailparser in
      // scripts/lib/smtp-catcher.ts (knip does not tie them to those imports).
      ignoreDependencies: ['@biomejs/biome', '@types/mailparser', '@types/smtp-server'],
    },
    'worker-api': {
      // The cpu-features shim is an alias in wrangler.toml (ssh2's optional native addon, D51).
      entry: ['src/shims/cpu-features.ts', 'vitest.*.ts', 'src/**/*.test.ts', 'test/**/*.test.ts'],
      project: ['src/**/*.{ts,js}', 'test/**/*.ts', '*.ts'],
      // test/env.d.ts references vite/client for import.meta types (vite comes with vitest).
      ignoreDependencies: ['vite'],
    },
    'worker-data': {
      entry: ['test/**/*.test.ts'],
      project: ['src/**/*.ts', 'test/**/*.ts'],
    },
    'remix-app': {
      entry: ['workers/*.ts', 'app/**/*.test.{ts,tsx}'],
      project: ['app/**/*.{ts,tsx}', 'workers/**/*.ts', '*.ts'],
      // React Router's typegen writes ./+types/<route> under .react-router/ (not checked in).
      ignoreUnresolved: ['^\\./\\+types/'],
      // @nivo/core is the peer dependency of every @nivo chart package; preact is named only as a vite alias
      // target (CAIRN_PREACT=1 builds, D24); react-resizable's CSS comes with react-grid-layout.
      ignoreDependencies: ['@nivo/core', 'preact', 'react-resizable'],
    },
    core: { entry: ['test/**/*.test.ts'], project: ['src/**/*.ts', 'test/**/*.ts'] },
    db: { entry: ['src/cli/*.ts', 'test/**/*.test.ts'], project: ['src/**/*.ts', 'test/**/*.ts', '*.ts'] },
    client: { entry: ['scripts/*.ts', 'test/**/*.test.ts'], project: ['src/**/*.ts', 'scripts/**/*.ts', 'test/**/*.ts'] },
    agent: { entry: ['bin/*.js'], project: ['src/**/*.ts'] },
    docs: { entry: ['test/**/*.test.{ts,tsx}'], project: ['src/**/*.{ts,tsx}', 'test/**/*.{ts,tsx}'] },
  },
  // Called by tests and scripts from the machine's PATH (OpenSSL for IdP certificates, OpenSSH for sshd,
  // iproute2's ss to find the worker process that holds a port).
  ignoreBinaries: ['openssl', 'ssh-keygen', 'ss'],
};

export default config;
