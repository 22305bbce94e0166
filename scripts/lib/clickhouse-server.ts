/**
 * A throwaway ClickHouse server for the ClickHouse connector's tests (worker-api/vitest.clickhouse.ts):
 * Debian's `clickhouse-server` package, started with a config written here (loopback only, its own data
 * directory, two users: `default` without a password and `cairn` with one) on free ports, stopped and
 * removed afterwards. CLICKHOUSE_SERVER names another binary.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from './ports.ts';
import { startTestServer } from './test-server.ts';

export const CLICKHOUSE_BINARY = process.env.CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server';
export const CLICKHOUSE_PASSWORD = 'cairn-clickhouse-secret';

export interface ClickhouseServer {
  httpPort: number;
  /** The server's own log lines (for a failure's explanation). */
  tail: string[];
  stop(): Promise<void>;
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function startClickhouse(opts: { portFrom?: number; timeoutMs?: number } = {}): Promise<ClickhouseServer> {
  if (!existsSync(CLICKHOUSE_BINARY)) {
    throw new Error(
      `${CLICKHOUSE_BINARY} is missing: install Debian's clickhouse-server (apt-get install clickhouse-server), or set CAIRN_SKIP_CLICKHOUSE=1 to skip these tests`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'cairn-clickhouse-'));
  const from = opts.portFrom ?? 20_000 + Math.floor(Math.random() * 20_000);
  const httpPort = await findFreePort(from);
  const tcpPort = await findFreePort(httpPort + 1);
  const data = join(dir, 'data');
  const users = ['default', 'cairn']
    .map(
      (name) => `
    <${name}>
      <password>${name === 'cairn' ? xmlEscape(CLICKHOUSE_PASSWORD) : ''}</password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </${name}>`,
    )
    .join('');
  const config = join(dir, 'config.xml');
  writeFileSync(
    config,
    `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <path>${data}/</path>
  <tmp_path>${data}/tmp/</tmp_path>
  <user_files_path>${data}/user_files/</user_files_path>
  <format_schema_path>${data}/format_schemas/</format_schema_path>
  <mark_cache_size>104857600</mark_cache_size>
  <uncompressed_cache_size>104857600</uncompressed_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
  <users>${users}
  </users>
  <profiles><default><max_memory_usage>1000000000</max_memory_usage></default></profiles>
  <quotas><default></default></quotas>
</yandex>
`,
  );
  const server = await startTestServer({
    name: `clickhouse-server on 127.0.0.1:${httpPort}`,
    binary: CLICKHOUSE_BINARY,
    args: [`--config-file=${config}`],
    dir,
    ready: async () => (await fetch(`http://127.0.0.1:${httpPort}/ping`)).ok,
    timeoutMs: opts.timeoutMs ?? 30_000,
    everyMs: 150,
  });
  return { httpPort, tail: server.tail, stop: server.stop };
}

/** Runs a statement as the default user (test setup: tables and rows). */
export async function clickhouseExec(httpPort: number, sql: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${httpPort}/`, { method: 'POST', body: sql });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse: ${text}`);
  return text;
}
