import type postgres from 'postgres';
import { RUNNABLE_DATABASE_TYPES, connectionModeRuns } from '@cairn/core';
import type { datasources } from '@cairn/db';
import type { Env } from '../env.ts';
import { assertRunnable, gateOf } from './execute.ts';
import { schemaExecution, schemaJobOf } from './schema-store.ts';
import { recordExecution } from './execution-row.ts';

type DatasourceRow = typeof datasources.$inferSelect;

/** Schema reads started per tick at most (the rest are due on the next ticks of the night). */
const SCHEMA_REFRESHES_PER_TICK = 20;
/** The night, in the organization's time zone: from 02:00 to 05:59. */
const NIGHT_FROM_HOUR = 2;
const NIGHT_TO_HOUR = 5;
/** A schema read (nightly or by hand) younger than this is not repeated in the night. */
const FRESH_HOURS = 12;
/** Whom the nightly reads are recorded as. */
const NIGHTLY_ACTOR = 'system:schema-refresh';

/**
 * Nightly schema refresh (issue 17): each enabled datasource with `update_schema_nightly` whose type
 * and connection mode run is read again once a night — when the clock of its organization's time
 * zone is between 02:00 and 05:59 and its schema was not read (or tried) in the last 12 hours. A
 * schema never read is not read at night: it is read on first use (GET /datasources/{id}/schema). The
 * read is the one POST /datasources/{id}/refresh starts (an almanach_query execution handed to the
 * datasource's gate), so row counts follow `update_schema_row_counts` the same way. Claiming runs
 * under one transaction-scoped advisory lock: two overlapping ticks (or both regions' crons on one
 * database) never start the same read twice. A datasource that cannot run (no driver, refused
 * target) is skipped without a record; a failing read is recorded as its execution and is tried
 * again the next night. The sample datasource never changes and is not read.
 */
export async function refreshSchemasNightly(sql: postgres.Sql, env: Env, now: Date, work: (p: Promise<unknown>) => void): Promise<string[]> {
  const modes = ['direct', 'ssh_tunnel', 'agent'].filter((mode) => connectionModeRuns(mode));
  const claimed = await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('cairn:schema-nightly'))`;
    const due = await tx<DatasourceRow[]>`
      select d.* from datasources d join organizations o on o.id = d.organization_id
       where d.update_schema_nightly and d.enabled and not d.is_sample and o.region = ${env.REGION}
         and d.database_type in ${tx(RUNNABLE_DATABASE_TYPES as unknown as string[])} and d.connection_mode in ${tx(modes)}
         and extract(hour from (${now}::timestamptz at time zone o.time_zone)) between ${NIGHT_FROM_HOUR} and ${NIGHT_TO_HOUR}
         and d.schema_updated_at < ${now}::timestamptz - make_interval(hours => ${FRESH_HOURS})
         and not exists (select 1 from executions e where e.datasource_id = d.id and e.params_hash = 'schema:' || d.id
                            and e.created_at > ${now}::timestamptz - make_interval(hours => ${FRESH_HOURS}))
       order by d.schema_updated_at, d.id limit ${SCHEMA_REFRESHES_PER_TICK}`;
    const out: { ds: DatasourceRow; id: string }[] = [];
    for (const ds of due) {
      try {
        await assertRunnable({ env }, ds);
      } catch (err) {
        console.error(`cron: datasource ${ds.id} cannot be read nightly: ${(err as Error).message}`);
        continue;
      }
      const id = await recordExecution((text, params) => tx.unsafe(text, params as never[]), schemaExecution(ds, 'nightly', NIGHTLY_ACTOR));
      out.push({ ds, id });
    }
    return out;
  });
  for (const { ds, id } of claimed) {
    work(
      gateOf({ env }, ds.id)
        .run(schemaJobOf(ds, id))
        .catch((err) => console.error(`cron: schema refresh of ${ds.id} failed`, err)),
    );
  }
  return claimed.map((c) => c.ds.id);
}
