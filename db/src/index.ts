export * as schema from './schema/index.ts';
export * from './schema/index.ts';
export { createDb, type Db, type DbClient, type Schema } from './client.ts';
