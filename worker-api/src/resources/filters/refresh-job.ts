/**
 * The queue's part of `POST /filters/{id}/refresh` for a filter on no dashboard (D61): the request
 * creates the execution and enqueues it; the consumer hands it to the datasource's gate, waits for it
 * and records the outcome on the filter (last_query_success / last_query_error_message /
 * options_refreshed_at). Filters on a dashboard refresh through the dashboard's status object instead.
 */
import { and, eq } from 'drizzle-orm';
import { executions, filters } from '@cairn/db';
import type { Env } from '../../env.ts';
import { pooledDb } from '../../lib/db.ts';
import { dispatch } from '../../engine/execute.ts';
import type { ExecutionOutcome } from '../../engine/job.ts';
import type { JobMessage } from '../../jobs/messages.ts';

type FilterRefresh = Extract<JobMessage, { kind: 'filter_refresh' }>;

const FINISHED = new Set(['cancelled', 'success', 'query_error', 'timed_out', 'internal_error', 'internal_timeout']);

/** A failure that may pass: the queue retries the message. */
class FilterRefreshPending extends Error {}

async function record(env: Env, msg: FilterRefresh, out: Pick<ExecutionOutcome, 'status' | 'errorMessage'>): Promise<void> {
  if (out.status === 'cancelled') return;
  await pooledDb(env)
    .update(filters)
    .set(
      out.status === 'success'
        ? { last_query_success: new Date(), last_query_error_message: null, options_refreshed_at: new Date() }
        : { last_query_error_message: out.errorMessage ?? 'The query failed.' },
    )
    .where(and(eq(filters.id, msg.filterId), eq(filters.organization_id, msg.organizationId)));
}

/**
 * Runs the refresh once: a redelivered message whose execution already ended only records its
 * outcome; one whose execution is still running (the previous consumer died, the gate did not) is
 * retried later rather than started twice.
 */
export async function refreshFilterJob(env: Env, msg: FilterRefresh): Promise<void> {
  const db = pooledDb(env);
  const [e] = await db
    .select({ status: executions.execution_status, error: executions.error_message })
    .from(executions)
    .where(and(eq(executions.id, msg.job.executionId), eq(executions.organization_id, msg.organizationId)))
    .limit(1);
  if (!e) return; // expired and deleted: nothing left to record
  if (FINISHED.has(e.status)) return record(env, msg, { status: e.status as ExecutionOutcome['status'], errorMessage: e.error });
  if (e.status !== 'starting') throw new FilterRefreshPending(`execution ${msg.job.executionId} is still ${e.status}`);
  const out = await dispatch({ env }, msg.job);
  await record(env, msg, out);
}

/** The dead-letter side: the filter says the refresh did not happen. */
export async function recordFilterRefreshFailure(env: Env, msg: FilterRefresh, why: string): Promise<void> {
  await pooledDb(env)
    .update(filters)
    .set({ last_query_error_message: why })
    .where(and(eq(filters.id, msg.filterId), eq(filters.organization_id, msg.organizationId)));
}
