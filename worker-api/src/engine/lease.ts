import type { Env } from '../env.ts';
import type { ExecutionOutcome } from './job.ts';
import { settingsOf } from '../config.ts';

/**
 * Executions hold a lease (issue 14, migration 0008): the gate that runs or queues an execution renews
 * `lease_expires_at` every third of the lease; a reader that finds an unfinished execution whose lease
 * has run out writes it off as internal_error. So when the runtime under a running query dies, every
 * read path (GET /executions/{id}, the dashboard status, data calls waiting for the run, the cron) tells
 * the truth within one lease instead of after the 10-minute guard.
 */

/** Default lease: a dead runtime shows within 45 s, and a live one renews every 15 s. */

const UNFINISHED = ['starting', 'running', 'waiting', 'scheduled'] as const;

export const LOST_MESSAGE = 'The execution was lost: the server running it stopped answering before it finished (its lease ran out). Run it again.';

/** The lease length (EXECUTION_LEASE_MS, at least 1 s; tests shorten it). */
export function leaseMsOf(env: Pick<Env, 'EXECUTION_LEASE_MS'>): number {
  return settingsOf(env).executionLeaseMs;
}

/** How often the holder renews (a third of the lease: two renewals may fail before it runs out). */
export const renewEveryMs = (env: Pick<Env, 'EXECUTION_LEASE_MS'>) => Math.floor(leaseMsOf(env) / 3);

/** Whether a row as read is unfinished with a lease that has run out (by this clock; the write-off asks the database's). */
function leaseExpired(row: { execution_status: string; lease_expires_at: Date | null }, now = Date.now()): boolean {
  return (UNFINISHED as readonly string[]).includes(row.execution_status) && !!row.lease_expires_at && row.lease_expires_at.getTime() < now;
}

/** Runs one statement with positional parameters and returns its rows. */
export type LeaseQuery = (text: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

/** Renews the lease of these executions (those still unfinished) for one more lease from now. */
export async function renewLeases(query: LeaseQuery, ids: string[], leaseMs: number): Promise<void> {
  if (!ids.length) return;
  await query(
    `update executions set lease_expires_at = now() + $2::float8 * interval '1 millisecond'
      where id = any(string_to_array($1, ',')) and execution_status in ('starting', 'running', 'waiting', 'scheduled')`,
    [ids.join(','), leaseMs],
  );
}

/**
 * Writes off unfinished executions whose lease has run out (of `ids`, or all of them when null);
 * returns the ids written off. The database's clock decides.
 */
export async function writeOffExpired(query: LeaseQuery, ids: string[] | null, message = LOST_MESSAGE): Promise<string[]> {
  const rows = await query(
    `update executions set execution_status = 'internal_error', completed_at = now(), updated_at = now(), error_message = $2
      where ($1::text is null or id = any(string_to_array($1, ',')))
        and execution_status in ('starting', 'running', 'waiting', 'scheduled') and lease_expires_at < now()
      returning id`,
    [ids ? ids.join(',') : null, message],
  );
  return rows.map((r) => String(r.id));
}

/**
 * Waits for a run the gate is doing (`work`, its RPC) while watching the execution's lease: when the
 * lease runs out (the gate's runtime died, or hangs) the execution is written off and the wait ends
 * with internal_error; when the call itself fails (the object was reset under it) the execution is
 * written off at once. So a data call never waits on a run that nobody runs any more.
 */
export async function awaitWithLease(
  env: Pick<Env, 'EXECUTION_LEASE_MS'>,
  query: LeaseQuery,
  executionId: string,
  work: Promise<ExecutionOutcome>,
): Promise<ExecutionOutcome> {
  const lost = (message: string): ExecutionOutcome => ({ executionId, status: 'internal_error', dataKey: null, rowCount: 0, errorMessage: message });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const watch = new Promise<ExecutionOutcome>((resolve) => {
    const tick = async () => {
      if (stopped) return;
      const gone = await writeOffExpired(query, [executionId]).catch(() => []);
      if (gone.length) resolve(lost(LOST_MESSAGE));
      else if (!stopped) timer = setTimeout(tick, renewEveryMs(env));
    };
    timer = setTimeout(tick, renewEveryMs(env));
  });
  const done = work.catch(async (err: unknown) => {
    const message = `The execution was lost: the server running it failed (${err instanceof Error ? err.message : String(err)}). Run it again.`;
    await query(
      `update executions set execution_status = 'internal_error', completed_at = now(), updated_at = now(), error_message = $2
        where id = $1 and execution_status in ('starting', 'running', 'waiting', 'scheduled')`,
      [executionId, message],
    ).catch(() => {});
    return lost(message);
  });
  try {
    return await Promise.race([done, watch]);
  } finally {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
  }
}

/**
 * A row as read, after the lease rule: an unfinished execution whose lease has run out is written off
 * now and read again (through `reread`), so the reader reports internal_error instead of a run nobody runs.
 */
export async function settleLease<T extends { id: string; execution_status: string; lease_expires_at: Date | null }>(
  query: LeaseQuery,
  row: T,
  reread: () => Promise<T | undefined>,
): Promise<T> {
  if (!leaseExpired(row)) return row;
  const gone = await writeOffExpired(query, [row.id]);
  return gone.length ? ((await reread()) ?? row) : row;
}
