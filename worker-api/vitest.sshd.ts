import base, { SSHD_TESTS } from './vitest.config.ts';

/**
 * The SSH tunnel tests (`npm test` runs this config after the worker-api suite): the same workerd
 * pool, plus a global setup that starts a real OpenSSH server (scripts/lib/sshd-server.ts) on a free
 * loopback port. CAIRN_SKIP_SSHD=1 skips them (the port is then 0 and the tests say so).
 */
export default {
  ...base,
  test: {
    ...base.test,
    include: [SSHD_TESTS],
    exclude: ['**/node_modules/**'],
    globalSetup: ['./vitest.peers.ts', './vitest.sshd-setup.ts'],
  },
};
