import { DurableObject } from 'cloudflare:workers';
import postgres from 'postgres';
import type { Env } from '../env.ts';
import type { ExecutionJob, ExecutionOutcome } from '../engine/job.ts';
import { runJob, type CancelHandle } from '../engine/run.ts';

interface Waiter {
  executionId: string;
  start: () => void;
  abandon: () => void;
}

/**
 * One per datasource (`gate::<datasource id>`): runs that datasource's executions with at most
 * `max_concurrent_executions` at a time (default 20). Executions beyond the limit are marked
 * `waiting` and start in arrival order as slots free up. It also knows how to cancel what it runs:
 * a waiting execution leaves the queue; a running one is cancelled in the database itself.
 *
 * The query runs inside this object, which holds a small postgres.js pool for Cairn's own database
 * (status updates, result storage, and the sample datasource).
 */
export class DatasourceGate extends DurableObject<Env> {
  private running = new Map<string, { cancel: CancelHandle | null; cancelled: boolean }>();
  private queue: Waiter[] = [];
  private readonly sql: postgres.Sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = postgres(env.HYPERDRIVE.connectionString, {
      max: 8, fetch_types: false, idle_timeout: 60, onnotice: () => {}, connection: { application_name: 'cairn-gate' },
    });
  }

  /** Runs the job when a slot is free and resolves with its outcome (also recorded in the database). */
  async run(job: ExecutionJob): Promise<ExecutionOutcome> {
    if (this.running.size >= Math.max(1, job.maxConcurrent)) {
      await this.sql`update executions set execution_status = 'waiting', updated_at = now()
        where id = ${job.executionId} and execution_status = 'starting'`;
      const started = await new Promise<boolean>((resolve) => {
        this.queue.push({ executionId: job.executionId, start: () => resolve(true), abandon: () => resolve(false) });
      });
      if (!started) {
        return { executionId: job.executionId, status: 'cancelled', dataKey: null, rowCount: 0, errorMessage: 'Cancelled while waiting.' };
      }
    }
    const slot = { cancel: null as CancelHandle | null, cancelled: false };
    this.running.set(job.executionId, slot);
    try {
      return await runJob({ env: this.env, sql: this.sql }, job, {
        onCancelHandle: (h) => {
          slot.cancel = h;
          if (slot.cancelled) void h();
        },
        isCancelled: () => slot.cancelled,
      });
    } finally {
      this.running.delete(job.executionId);
      this.queue.shift()?.start();
    }
  }

  /** Cancels a waiting or running execution of this datasource; false when it is not here (finished). */
  async cancel(executionId: string): Promise<boolean> {
    const i = this.queue.findIndex((w) => w.executionId === executionId);
    if (i >= 0) {
      const [w] = this.queue.splice(i, 1);
      await this.sql`update executions set execution_status = 'cancelled', completed_at = now(), updated_at = now(),
        error_message = 'Cancelled while waiting.' where id = ${executionId} and execution_status in ('starting', 'waiting')`;
      w!.abandon();
      return true;
    }
    const slot = this.running.get(executionId);
    if (!slot) return false;
    slot.cancelled = true;
    if (slot.cancel) await slot.cancel();
    return true;
  }

  async stats(): Promise<{ running: number; waiting: number }> {
    return { running: this.running.size, waiting: this.queue.length };
  }
}
