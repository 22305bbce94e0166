import { DurableObject } from 'cloudflare:workers';
import postgres from 'postgres';
import type { Env } from '../env.ts';
import type { ExecutionJob, ExecutionOutcome } from '../engine/job.ts';
import { limitsOf, runJob } from '../engine/run.ts';
import type { ResultBucket } from '@cairn/core/results/object';
import { connectorFor, type CancelHandle, type DatasourceRow } from '../engine/connectors/index.ts';
import { afterJob } from '../engine/follow-up.ts';
import { targetPolicy } from '../engine/target-policy.ts';
import { sshKeyFromSql } from '../engine/ssh-key.ts';
import { leaseMsOf, renewEveryMs, renewLeases } from '../engine/lease.ts';

interface Waiter {
  executionId: string;
  start: () => void;
  abandon: () => void;
}

interface Slot {
  controller: AbortController;
  /** The running statement, once the connector knows it. */
  handle: CancelHandle | null;
  ds: DatasourceRow | null;
}

const UNFINISHED = ['starting', 'running', 'waiting', 'scheduled'];
/** Past the guard, how long an execution this gate does not know about may stay unfinished before it is written off. */
const SWEEP_MARGIN_MS = 60_000;

/**
 * One per datasource (`gate::<datasource id>`): runs that datasource's executions with at most
 * `max_concurrent_executions` at a time (default 20). Executions beyond the limit are marked
 * `waiting` and start in arrival order as slots free up. It also keeps the cancel registry: a
 * waiting execution leaves the queue; a running one is cancelled in the database itself, from a
 * second connection (pg_cancel_backend, KILL QUERY) with the handle its connector registered.
 *
 * The query runs inside this object, which holds a small postgres.js pool on Cairn's own database
 * for status updates and result chunks; the query itself has a connection of its own (for the
 * sample datasource, to the sample database: D32).
 *
 * Executions do not outlive the object that runs them: when it starts (the first job after a
 * restart) and on an alarm while it works, unfinished executions of its datasource that it does not
 * know and that are older than the guard are written off as internal_error, so none stays
 * `running` forever.
 */
export class DatasourceGate extends DurableObject<Env> {
  private running = new Map<string, Slot>();
  private queue: Waiter[] = [];
  private writes: postgres.Sql | null = null;
  private datasourceId: string | null = null;
  private leaseTimer: ReturnType<typeof setInterval> | null = null;

  private pool(_kind: 'writes'): postgres.Sql {
    return (this.writes ??= postgres(this.env.HYPERDRIVE.connectionString, {
      max: 4,
      fetch_types: false,
      idle_timeout: 60,
      onnotice: () => {},
      connection: { application_name: 'cairn-gate' },
    }));
  }

  /** Runs the job when a slot is free and resolves with its outcome (also recorded in the database). */
  async run(job: ExecutionJob): Promise<ExecutionOutcome> {
    await this.remember(job.datasourceId);
    if (this.running.size >= Math.max(1, job.maxConcurrent)) {
      await this.pool('writes')`update executions set execution_status = 'waiting', updated_at = now(),
          lease_expires_at = now() + ${leaseMsOf(this.env)}::float8 * interval '1 millisecond'
        where id = ${job.executionId} and execution_status = 'starting'`;
      this.keepLeases();
      const started = await new Promise<boolean>((resolve) => {
        this.queue.push({ executionId: job.executionId, start: () => resolve(true), abandon: () => resolve(false) });
      });
      if (!started) {
        const out: ExecutionOutcome = {
          executionId: job.executionId,
          status: 'cancelled',
          dataKey: null,
          rowCount: 0,
          errorMessage: 'Cancelled while waiting.',
        };
        await this.followUp(job, out);
        return out;
      }
    }
    const slot: Slot = { controller: new AbortController(), handle: null, ds: null };
    this.running.set(job.executionId, slot);
    this.keepLeases();
    let outcome: ExecutionOutcome;
    try {
      outcome = await runJob({ env: this.env, sql: this.pool('writes'), bucket: this.env.RESULTS as ResultBucket }, job, {
        signal: slot.controller.signal,
        onCancelHandle: (handle, ds) => {
          slot.handle = handle;
          slot.ds = ds;
        },
      });
    } finally {
      this.running.delete(job.executionId);
      this.queue.shift()?.start();
    }
    await this.followUp(job, outcome);
    return outcome;
  }

  /** Alert evaluation and e-mail after the slot is free; its failure never changes the execution's outcome. */
  private async followUp(job: ExecutionJob, outcome: ExecutionOutcome) {
    if (!job.followUp) return;
    await afterJob({ env: this.env, sql: this.pool('writes') }, job, outcome).catch((err) =>
      console.error(`gate: follow-up of execution ${job.executionId} failed`, err),
    );
  }

  /**
   * Cancels a waiting or running execution of this datasource; false when it is not here (finished,
   * or lost with a restart). A running statement is cancelled from a second connection right away.
   */
  async cancel(executionId: string): Promise<boolean> {
    const i = this.queue.findIndex((w) => w.executionId === executionId);
    if (i >= 0) {
      const [w] = this.queue.splice(i, 1);
      await this.pool('writes')`update executions set execution_status = 'cancelled', completed_at = now(), updated_at = now(),
        error_message = 'Cancelled while waiting.' where id = ${executionId} and execution_status in ('starting', 'waiting')`;
      w!.abandon();
      return true;
    }
    const slot = this.running.get(executionId);
    if (!slot) return false;
    // The run notices the abort (its status becomes cancelled; before the statement is known, the connection is closed).
    slot.controller.abort();
    if (slot.handle && slot.ds) {
      const policy = targetPolicy(this.env, (text) => this.pool('writes').unsafe(text));
      const connector = await connectorFor(slot.ds, {
        secretKey: this.env.SECRET_KEY,
        sampleDb: this.env.SAMPLE_DB,
        policy,
        agentHub: this.env.AGENT_HUB,
        sshKey: sshKeyFromSql(this.pool('writes'), this.env.SECRET_KEY),
      });
      await connector.cancel(slot.handle).catch((err) => console.error(`gate: cancelling ${executionId} failed`, err));
    }
    return true;
  }

  /**
   * While this object runs or queues executions, it renews their leases every third of the lease
   * (engine/lease.ts). If the runtime dies, the renewals stop with it and readers write them off.
   */
  private keepLeases() {
    if (this.leaseTimer) return;
    this.leaseTimer = setInterval(() => {
      const ids = [...this.running.keys(), ...this.queue.map((w) => w.executionId)];
      if (!ids.length) {
        clearInterval(this.leaseTimer!);
        this.leaseTimer = null;
        return;
      }
      const sql = this.pool('writes');
      renewLeases((text, params) => sql.unsafe(text, params as never[]), ids, leaseMsOf(this.env)).catch((err) =>
        console.error('gate: renewing leases failed', err),
      );
    }, renewEveryMs(this.env));
  }

  async stats(): Promise<{ running: number; waiting: number }> {
    return { running: this.running.size, waiting: this.queue.length };
  }

  /** The alarm keeps the sweep going while the object works, and after a restart finds what the old instance left. */
  override async alarm(): Promise<void> {
    this.datasourceId ??= (await this.ctx.storage.get<string>('datasource_id')) ?? null;
    await this.sweep();
    if (this.running.size || this.queue.length) await this.ctx.storage.setAlarm(Date.now() + this.sweepAfterMs());
  }

  private sweepAfterMs() {
    return limitsOf(this.env, {}).guardMs + SWEEP_MARGIN_MS;
  }

  /** The first job after a (re)start tells the object its datasource: it sweeps once and arms the alarm. */
  private async remember(datasourceId: string) {
    if (this.datasourceId === datasourceId) return;
    this.datasourceId = datasourceId;
    await this.ctx.storage.put('datasource_id', datasourceId);
    await this.sweep();
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + this.sweepAfterMs());
  }

  /** Unfinished executions of this datasource that this object does not run or queue and that are older than the guard. */
  private async sweep(): Promise<number> {
    if (!this.datasourceId) return 0;
    const known = [...this.running.keys(), ...this.queue.map((w) => w.executionId)];
    const olderThan = new Date(Date.now() - this.sweepAfterMs());
    const rows = await this.pool('writes')`
      update executions set execution_status = 'internal_error', completed_at = now(), updated_at = now(),
             error_message = 'The execution was lost: the server running it restarted before it finished.'
       where datasource_id = ${this.datasourceId} and execution_status in ${this.pool('writes')(UNFINISHED)}
         and coalesce(started_at, created_at) < ${olderThan}
         and not (id = any(string_to_array(${known.join(',')}, ',')))
      returning id`;
    return rows.length;
  }

  /** For tests: sweep now with this datasource (as a restarted object would on its first job). */
  async sweepFor(datasourceId: string): Promise<number> {
    this.datasourceId = datasourceId;
    return this.sweep();
  }
}
