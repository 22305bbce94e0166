import type { TestProject } from 'vitest/node';
import { startClickhouse } from '../scripts/lib/clickhouse-server.ts';

/** Starts clickhouse-server for src/engine/connectors/clickhouse.test.ts (workerd cannot spawn processes). */
export default async function setup(project: TestProject) {
  if (process.env.CAIRN_SKIP_CLICKHOUSE === '1') {
    project.provide('clickhousePort', 0);
    return;
  }
  const server = await startClickhouse();
  project.provide('clickhousePort', server.httpPort);
  return () => server.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    clickhousePort: number;
  }
}
