import { workersTestConfig } from '../vitest.workers.ts';

export default workersTestConfig({
  SECRET_KEY: 'test-secret-key',
  DATA_SERVER_URL: 'http://data.test',
  RATE_LIMIT_RPS: '1000',
  RATE_LIMIT_BURST: '1000',
});
