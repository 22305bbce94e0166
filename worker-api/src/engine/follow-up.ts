import type postgres from 'postgres';
import type { Env } from '../env.ts';
import type { ExecutionJob, ExecutionOutcome } from './job.ts';
import { finishAlertRun } from './alert-run.ts';

export interface FollowUpDeps {
  env: Env;
  sql: postgres.Sql;
}

/** What happens in the gate once an execution has ended: today, evaluating the alert that ran it. */
export async function afterJob(deps: FollowUpDeps, job: ExecutionJob, outcome: ExecutionOutcome): Promise<void> {
  if (job.followUp?.kind === 'sql_alert') await finishAlertRun(deps, job, outcome);
}
