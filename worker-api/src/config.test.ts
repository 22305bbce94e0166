import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { DEFAULTS, readSettings, settingsOf } from './config.ts';

/** The operator settings are read in one place (src/config.ts): defaults, bounds and bad values. */
describe('settings', () => {
  it('take their defaults when unset or blank', () => {
    const { settings, problems } = readSettings({ RATE_LIMIT_RPS: '  ' });
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({ ...DEFAULTS, readCacheOff: false, blockPrivateNetworks: false });
    expect(settings.executionLeaseMs).toBe(45_000);
  });

  it('read numbers, switches and zero where zero means off', () => {
    const { settings, problems } = readSettings({
      AUTH_CACHE_MS: '0',
      POLL_REUSE_MS: '0',
      RATE_LIMIT_RPS: '0.5',
      EXECUTION_LEASE_MS: '10000',
      AUDIT_LOG_KEPT_DAYS: '0',
      READ_CACHE: 'OFF',
      BLOCK_PRIVATE_NETWORKS: 'yes',
    });
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({
      authCacheMs: 0,
      pollReuseMs: 0,
      rateLimitRps: 0.5,
      executionLeaseMs: 10_000,
      auditLogKeptDays: 0,
      readCacheOff: true,
      blockPrivateNetworks: true,
    });
  });

  it('report a bad value by its variable and keep the default (never NaN)', () => {
    const { settings, problems } = readSettings({
      RATE_LIMIT_BURST: 'lots',
      EXECUTION_LEASE_MS: '500',
      DB_POOL_CONNECTIONS: '2.5',
      STATEMENT_TIMEOUT_MS: '-1',
    });
    expect(settings).toMatchObject({ rateLimitBurst: 200, executionLeaseMs: 45_000, dbPoolConnections: 6, statementTimeoutMs: 120_000 });
    expect(problems.map((p) => p.split('=')[0])).toEqual(['RATE_LIMIT_BURST', 'STATEMENT_TIMEOUT_MS', 'EXECUTION_LEASE_MS', 'DB_POOL_CONNECTIONS']);
  });

  it('are read once per env object: the test config is what this worker runs with', () => {
    const a = settingsOf(env);
    expect(settingsOf(env)).toBe(a);
    expect(a).toMatchObject({ authCacheMs: 0, rateLimitRps: 1000, executionLeaseMs: 10_000, blockPrivateNetworks: false });
  });
});
