import { createApp } from './app.ts';

export { RateLimiter } from './durable/rate-limiter.ts';
export { DbPool } from './durable/db-pool.ts';

const app = createApp();
export default app;
