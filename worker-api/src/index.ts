import { createApp } from './app.ts';

export { RateLimiter } from './durable/rate-limiter.ts';

const app = createApp();
export default app;
