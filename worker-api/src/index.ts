import { createApp } from './app.ts';
import { scheduled } from './cron.ts';
import { queue } from './jobs/consume.ts';
import type { JobMessage } from './jobs/messages.ts';
import type { Env } from './env.ts';

export { RateLimiter } from './durable/rate-limiter.ts';
export { DbPool } from './durable/db-pool.ts';
export { DatasourceGate } from './durable/datasource-gate.ts';
export { DashboardStatus } from './durable/dashboard-status.ts';
export { AgentHub } from './durable/agent-hub.ts';

const app = createApp();
export default { fetch: app.fetch, scheduled, queue } satisfies ExportedHandler<Env, JobMessage>;
