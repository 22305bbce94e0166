import base, { CLICKHOUSE_TESTS } from './vitest.config.ts';

/**
 * The ClickHouse connector's tests (`npm test` runs this config after the worker-api suite): the same
 * workerd pool, plus a global setup that starts a real clickhouse-server (scripts/lib/clickhouse-server.ts)
 * on free ports and hands its HTTP port to the tests (`inject('clickhousePort')`).
 * CAIRN_SKIP_CLICKHOUSE=1 skips them (the port is then 0 and the tests say so).
 */
export default {
  ...base,
  test: {
    ...base.test,
    include: [CLICKHOUSE_TESTS],
    exclude: ['**/node_modules/**'],
    globalSetup: ['./vitest.peers.ts', './vitest.clickhouse-setup.ts'],
  },
};
