import type { Driver } from './driver.ts';
import { mssqlDriver } from './mssql.ts';
import { mysqlDriver } from './mysql.ts';
import { oracleDriver } from './oracle.ts';
import { postgresDriver } from './postgres.ts';
import { verticaDriver } from './vertica.ts';

/** The driver of each database type the agent runs (the list the API checks: AGENT_DATABASE_TYPES). */
export const DRIVERS: Record<string, Driver> = {
  postgres: postgresDriver,
  redshift: postgresDriver,
  mysql: mysqlDriver,
  mariadb: mysqlDriver,
  mssql: mssqlDriver,
  oracle: oracleDriver,
  vertica: verticaDriver,
};
