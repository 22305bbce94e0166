import { ApiError } from '@cairn/core';

/** A refused single sign-on: 401 with `meta.reason` (the app shows the detail; tests read the reason). */
export const ssoRefused = (detail: string, reason: string) => new ApiError('unauthorized', detail, { meta: { reason } });
