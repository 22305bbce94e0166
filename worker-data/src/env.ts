import type { Region } from '@cairn/core';

export interface Env {
  REGION: Region;
  HYPERDRIVE: Hyperdrive;
  /** Set by the test config only: leave connections open (the test pool cannot close them). */
  CAIRN_KEEP_CONNECTIONS?: string;
  /** HMAC secret shared with this region's API server. */
  DATA_TOKEN_SECRET: string;
}
export type AppEnv = { Bindings: Env; Variables: { requestId: string } };
