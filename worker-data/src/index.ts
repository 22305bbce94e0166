import { createApp } from './app.ts';

// The token bucket of the API server (one home for it): here it counts failed data tokens per address.
export { RateLimiter } from '../../worker-api/src/durable/rate-limiter.ts';

export default createApp();
