/** Executions and their results are kept 24 hours (spec 02 §9). */
export const EXECUTION_TTL_MS = 24 * 3_600_000;
