import { createApp } from './app.ts';
import { scheduled } from './cron.ts';
import type { Env } from './env.ts';

export { RateLimiter } from './durable/rate-limiter.ts';
export { DbPool } from './durable/db-pool.ts';
export { DatasourceGate } from './durable/datasource-gate.ts';
export { DashboardStatus } from './durable/dashboard-status.ts';

const app = createApp();
export default { fetch: app.fetch, scheduled } satisfies ExportedHandler<Env>;
