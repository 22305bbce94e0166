/**
 * Which datasources can run queries today: the one list that the API's connectors
 * (worker-api/src/engine/connectors) and the app's datasource form both read, so the form never offers
 * a type or a connection mode that the engine cannot run. A type or mode missing here is accepted by
 * the API as stored settings (the spec's data model) but every run, test and schema read of it is a
 * 422 invalid_state; the form shows it as "not available yet".
 */

/** Database types with a driver (connection mode direct). cratedb rides on the Postgres wire protocol. */
export const RUNNABLE_DATABASE_TYPES = ['postgres', 'redshift', 'mysql', 'mariadb'] as const;

/** Connection modes that run queries. */
export const RUNNABLE_CONNECTION_MODES = ['direct'] as const;

/** Whether a database type runs queries today. */
export function databaseTypeRuns(type: string): boolean {
  return (RUNNABLE_DATABASE_TYPES as readonly string[]).includes(type);
}

/** Whether a connection mode runs queries today. */
export function connectionModeRuns(mode: string): boolean {
  return (RUNNABLE_CONNECTION_MODES as readonly string[]).includes(mode);
}
