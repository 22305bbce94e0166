import type { Region } from '@cairn/core';
import type { RateLimiter } from '../../worker-api/src/durable/rate-limiter.ts';

export interface Env {
  REGION: Region;
  HYPERDRIVE: Hyperdrive;
  /**
   * The region's bucket of result rows and export files (ARCHITECTURE D55); shared by the region's API
   * and data server. Required (D61): query results and export files live only there; result_chunks
   * holds schema documents.
   */
  RESULTS: R2Bucket;
  /** Set by the test config only: leave connections open (the test pool cannot close them). */
  CAIRN_KEEP_CONNECTIONS?: string;
  /** HMAC secret shared with this region's API server. */
  DATA_TOKEN_SECRET: string;
  /** Failed data tokens per client address (app.ts, worker-api/src/auth/failures.ts). */
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** Public base URLs of both regions' servers, named in 403 wrong_region answers (core/src/regions.ts). */
  API_BASE_URL_EU?: string;
  API_BASE_URL_US?: string;
  DATA_BASE_URL_EU?: string;
  DATA_BASE_URL_US?: string;
}
export type AppEnv = { Bindings: Env; Variables: { requestId: string } };
