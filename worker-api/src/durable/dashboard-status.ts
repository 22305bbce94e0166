import { DurableObject } from 'cloudflare:workers';
import postgres from 'postgres';
import {
  QUERY_CONTROLS,
  dialectOf,
  newId,
  resolveDashboardTimeZone,
  type FilterDefinition,
  type InputParameters,
  type SnippetDefinition,
  type SqlContext,
  type TimeZoneConfig,
} from '@cairn/core';
import type { Env } from '../env.ts';
import { isStale } from '../engine/staleness.ts';
import { compileIdentified } from '../engine/identity.ts';
import { latestResult, queryJob, recordExecution } from '../engine/execution-row.ts';
import { dispatch } from '../engine/execute.ts';
import type { StatusFields } from '../resources/dashboard-status/schema.ts';

/** One poller's question to the object: the dashboard, its parameters, and whether to re-run. */
export interface StatusRequest {
  organizationId: string;
  dashboardId: string;
  parameters: InputParameters;
  refresh: boolean;
  /** Who asks, for the record of who caused an execution. */
  actor: string;
  /** The asker as the built-in snippets see them (nulls for API keys). */
  context: Pick<SqlContext, 'userEmail' | 'userFirstname' | 'userLastname' | 'userRole'>;
}

/**
 * One report's or filter's entry as the object keeps it: the answer's fields (resources/dashboard-status/
 * schema.ts) without the data token, which is signed per answer, plus what the entry is for.
 */
export type StatusEntry = Omit<StatusFields, 'data_access_token' | 'error'> & {
  id: string;
  kind: 'report' | 'filter';
  error: NonNullable<StatusFields['error']> | null;
};

interface Source {
  id: string;
  kind: 'report' | 'filter';
  datasourceId: string;
  dialect: 'postgres' | 'mysql';
  dataTimeZone: string;
  sql: string;
  refreshMinutes: number;
  /** data_refresh_anchor_time (HH:MM in the organization's time zone), if any. */
  anchor: string | null;
  maxConcurrent: number;
}

interface Snapshot {
  at: number;
  sources: Source[];
  filters: FilterDefinition[];
  snippets: SnippetDefinition[];
  dashboardName: string;
  timeZoneConfig: TimeZoneConfig;
  organizationTimeZone: string;
  aggregationOptions: string[] | null;
}

/** Where one report's or filter's data stands for a parameter set (the options call reads it). */
export interface SourceState {
  executionId: string | null;
  executionStatus: string | null;
  /** The latest successful result (possibly older than a run under way). */
  dataKey: string | null;
  dataTimestamp: string | null;
  rowCount: number | null;
  running: boolean;
  error: { code: string; message: string } | null;
}

interface Slot {
  paramsHash: string;
  executionId: string | null;
  executionStatus: string | null;
  dataKey: string | null;
  rowCount: number | null;
  dataTimestamp: number | null;
  error: { code: string; message: string } | null;
  /** When the last run failed (a failed run is retried after ERROR_RETRY_MS, not on every poll). */
  errorAt?: number;
  /** Adopting a stored result when the slot was made; callers wait for it. */
  ready?: Promise<void> | null;
  inFlight: Promise<void> | null;
  /**
   * The running execution's row being inserted: nobody is handed `executionId` before it exists
   * (a caller that asks `GET /executions/{id}` at once would get 404). Settles, never rejects.
   */
  recorded?: Promise<void> | null;
}

interface Compiled {
  compiled: { text: string; values: unknown[]; sessionTimeZone: string; timeZone: string };
  paramsHash: string;
}

const SNAPSHOT_MS = 3_000;
/** The longest a `source` call waits for a run under way. */
const MAX_WAIT_MS = 25_000;
const ERROR_RETRY_MS = 5 * 60_000;

/**
 * One per dashboard and parameter set (`status::<dashboard>::<hash of parameters>`): every viewer
 * polling the same dashboard with the same filters asks this one object, which keeps each report's
 * latest result in memory and starts at most one execution per report at a time. A thousand pollers
 * cause one execution per report; results are reused until the report's refresh rate says they are
 * stale, and then re-run while the older data is still served (`data_current: false, running: true`).
 */
export class DashboardStatus extends DurableObject<Env> {
  private readonly sql: postgres.Sql;
  private snapshot: Snapshot | null = null;
  private loading: Promise<Snapshot> | null = null;
  /** By source id and the hash of its compiled query (users whose context changes the SQL get their own). */
  private slots = new Map<string, Slot>();
  private compiledCache = new Map<string, { at: number; value: Compiled | { error: NonNullable<StatusEntry['error']> } }>();
  private static readonly MAX_SLOTS = 2_000;
  /** This object's client as a Statement (engine/execution-row.ts, engine/lease.ts). */
  private readonly query = (text: string, params: unknown[]) => this.sql.unsafe(text, params as never[]) as unknown as Promise<Record<string, unknown>[]>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = postgres(env.HYPERDRIVE.connectionString, {
      max: 3,
      fetch_types: false,
      idle_timeout: 60,
      onnotice: () => {},
      connection: { application_name: 'cairn-status' },
    });
  }

  async poll(req: StatusRequest): Promise<{ entries: StatusEntry[]; updated_at: string }> {
    const snap = await this.load(req);
    const entries: StatusEntry[] = [];
    for (const source of snap.sources) {
      entries.push(await this.entry(source, snap, req));
    }
    return { entries, updated_at: new Date().toISOString() };
  }

  /** The dashboard's reports and dynamic filters, re-read every few seconds so edits show up. */
  private async load(req: StatusRequest, force = false): Promise<Snapshot> {
    if (this.snapshot && Date.now() - this.snapshot.at < SNAPSHOT_MS && !req.refresh && !force) return this.snapshot;
    this.loading ??= (async () => {
      try {
        const rows = await this.sql<
          {
            kind: 'report' | 'filter';
            id: string;
            datasource_id: string;
            database_type: string;
            sql_query: string;
            refresh: number;
            anchor: string | null;
            max_concurrent: number;
            data_time_zone: string;
          }[]
        >`
          select 'report' as kind, r.id, r.datasource_id, ds.database_type, r.sql_query,
                 coalesce(r.data_refresh_rate, d.data_refresh_rate) as refresh,
                 coalesce(r.data_refresh_anchor_time, d.data_refresh_anchor_time) as anchor, ds.max_concurrent_executions as max_concurrent,
                 ds.data_time_zone
            from reports r join dashboards d on d.id = r.dashboard_id join datasources ds on ds.id = r.datasource_id
           where r.dashboard_id = ${req.dashboardId} and r.organization_id = ${req.organizationId}
          union all
          select 'filter', f.id, f.datasource_id, ds.database_type, f.sql_query,
                 coalesce(f.data_refresh_rate, d.data_refresh_rate), d.data_refresh_anchor_time, ds.max_concurrent_executions, ds.data_time_zone
            from dashboard_filters df join filters f on f.id = df.filter_id join dashboards d on d.id = df.dashboard_id
            join datasources ds on ds.id = f.datasource_id
           where df.dashboard_id = ${req.dashboardId} and df.organization_id = ${req.organizationId}
             and f.sql_query is not null and f.control_type in ${this.sql([...QUERY_CONTROLS])}
           order by 1 desc, 2`;
        const filters = await this.sql<FilterDefinition[]>`
          select f.variable_name, f.control_type, f.value_type, f.allowed_aggregations, f.default_values
            from dashboard_filters df join filters f on f.id = df.filter_id
           where df.dashboard_id = ${req.dashboardId} and df.organization_id = ${req.organizationId}`;
        const [dash] = await this.sql<
          { name: string; time_zone_config: TimeZoneConfig; filters_configuration: { aggregation_options?: string[] }; org_tz: string }[]
        >`
          select d.name, d.time_zone_config, d.filters_configuration, o.time_zone as org_tz
            from dashboards d join organizations o on o.id = d.organization_id
           where d.id = ${req.dashboardId} and d.organization_id = ${req.organizationId}`;
        const snippets = await this.sql<SnippetDefinition[]>`
          select name, text, params from sql_snippets where organization_id = ${req.organizationId}`;
        this.snapshot = {
          at: Date.now(),
          filters: [...filters],
          snippets: [...snippets],
          dashboardName: dash?.name ?? '',
          timeZoneConfig: dash?.time_zone_config ?? { type: 'organization' },
          organizationTimeZone: dash?.org_tz ?? 'UTC',
          aggregationOptions: dash?.filters_configuration?.aggregation_options ?? null,
          sources: rows.map((r) => ({
            id: r.id,
            kind: r.kind,
            datasourceId: r.datasource_id,
            sql: r.sql_query,
            refreshMinutes: Number(r.refresh ?? 1440),
            anchor: r.anchor,
            dialect: dialectOf(r.database_type) ?? 'postgres',
            dataTimeZone: r.data_time_zone ?? 'UTC',
            maxConcurrent: Number(r.max_concurrent ?? 20),
          })),
        };
        return this.snapshot;
      } finally {
        this.loading = null;
      }
    })();
    return this.loading;
  }

  /**
   * Where one report's or dynamic filter's data stands for these parameters (the options call):
   * starts a run when the data is missing or stale (or `refresh`), and waits up to `waitMs` for a run
   * under way. Null when the dashboard shows no such source.
   */
  async source(req: StatusRequest, sourceId: string, opts: { refresh?: boolean; waitMs?: number } = {}): Promise<SourceState | null> {
    let snap = await this.load(req);
    let source = snap.sources.find((s) => s.id === sourceId);
    // Just added to the dashboard (the snapshot is a few seconds old): look again before saying no.
    if (!source) {
      snap = await this.load(req, true);
      source = snap.sources.find((s) => s.id === sourceId);
    }
    if (!source) return null;
    const { slot, error } = await this.slotFor(source, snap, req, opts.refresh ?? false);
    if (slot?.inFlight && opts.waitMs) {
      let timer: ReturnType<typeof setTimeout> | null = null;
      await Promise.race([
        slot.inFlight,
        new Promise<void>((r) => {
          timer = setTimeout(r, Math.min(opts.waitMs!, MAX_WAIT_MS));
        }),
      ]);
      if (timer) clearTimeout(timer);
    }
    return {
      executionId: slot?.executionId ?? null,
      executionStatus: slot?.executionStatus ?? null,
      dataKey: slot?.dataKey ?? null,
      dataTimestamp: slot?.dataTimestamp ? new Date(slot.dataTimestamp).toISOString() : null,
      rowCount: slot?.rowCount ?? null,
      running: !!slot?.inFlight,
      error: error ?? slot?.error ?? null,
    };
  }

  private async entry(source: Source, snap: Snapshot, req: StatusRequest): Promise<StatusEntry> {
    const { slot, error } = await this.slotFor(source, snap, req, req.refresh);
    return this.view(source, snap, slot, error);
  }

  /**
   * The source's SQL compiled for these parameters and this caller's snippet context, and its hash;
   * remembered until the snapshot is re-read (the hot path of a poll: no compiling per poller).
   */
  private async compiled(source: Source, snap: Snapshot, req: StatusRequest): Promise<Compiled | { error: NonNullable<StatusEntry['error']> }> {
    const key = `${source.id}\u0000${JSON.stringify(req.context)}\u0000${JSON.stringify(req.parameters)}`;
    const hit = this.compiledCache.get(key);
    if (hit && hit.at === snap.at) return hit.value;
    let value: Compiled | { error: NonNullable<StatusEntry['error']> };
    try {
      value = await compileIdentified(source.datasourceId, {
        sql: source.sql,
        dialect: source.dialect,
        filters: snap.filters,
        parameters: req.parameters,
        dataTimeZone: source.dataTimeZone,
        aggregationOptions: snap.aggregationOptions,
        snippets: snap.snippets,
        timeZone: resolveDashboardTimeZone({
          config: snap.timeZoneConfig,
          requested: req.parameters.tz ?? null,
          organizationTimeZone: snap.organizationTimeZone,
        }),
        context: { ...req.context, dashboardName: snap.dashboardName, dashboardId: req.dashboardId },
      });
    } catch (err) {
      const e = err as { code?: string; message: string };
      value = { error: { code: e.code === 'invalid_attribute' ? 'invalid_sql' : (e.code ?? 'invalid_sql'), message: e.message } };
    }
    if (this.compiledCache.size >= DashboardStatus.MAX_SLOTS) this.compiledCache.clear();
    this.compiledCache.set(key, { at: snap.at, value });
    return value;
  }

  /** The source's slot for these parameters; a run is started when its data is missing, stale or `force`d. */
  private async slotFor(source: Source, snap: Snapshot, req: StatusRequest, force: boolean): Promise<{ slot: Slot | null; error: StatusEntry['error'] }> {
    const made = await this.compiled(source, snap, req);
    if ('error' in made) return { slot: null, error: made.error };
    const { compiled, paramsHash } = made;
    const slotKey = `${source.id}:${paramsHash}`;
    let slot = this.slots.get(slotKey);
    if (!slot) {
      slot = { paramsHash, executionId: null, executionStatus: null, dataKey: null, rowCount: null, dataTimestamp: null, error: null, inFlight: null };
      if (this.slots.size >= DashboardStatus.MAX_SLOTS) this.slots.delete(this.slots.keys().next().value!);
      this.slots.set(slotKey, slot);
      // Every concurrent caller waits for the stored result to be adopted before deciding to run.
      slot.ready = force ? null : this.adoptStored(slot, req.organizationId).catch(() => {});
    }
    if (slot.ready) await slot.ready;
    const stale = !slot.dataTimestamp || isStale(slot.dataTimestamp, Date.now(), source.refreshMinutes, source.anchor, snap.organizationTimeZone);
    const retry = !slot.error || Date.now() - (slot.errorAt ?? 0) > Math.min(ERROR_RETRY_MS, source.refreshMinutes * 60_000);
    const wantRun = (force || (stale && retry)) && !slot.inFlight;
    if (wantRun) this.start(slot, source, req, compiled);
    if (slot.recorded) await slot.recorded;
    return { slot, error: null };
  }

  /**
   * The newest stored result of the same query that has not expired (another poller's, a refresh's,
   * a prewarm's): shown at once, and re-run meanwhile when it is stale.
   */
  private async adoptStored(slot: Slot, organizationId: string) {
    const found = await latestResult(this.query, organizationId, slot.paramsHash);
    if (found) {
      Object.assign(slot, {
        executionId: found.executionId,
        executionStatus: 'success',
        dataKey: found.dataKey,
        rowCount: found.rowCount,
        dataTimestamp: found.dataTimestamp,
      });
    }
  }

  private start(slot: Slot, source: Source, req: StatusRequest, compiled: { text: string; values: unknown[]; sessionTimeZone: string; timeZone: string }) {
    const id = newId('execution');
    slot.executionId = id;
    slot.executionStatus = 'starting';
    slot.error = null;
    // The row first: callers of slotFor wait for it before they see the id (slot.recorded).
    const insert = recordExecution(this.query, {
      id,
      organizationId: req.organizationId,
      datasourceId: source.datasourceId,
      type: source.kind === 'report' ? 'sql_query' : 'sql_filter',
      source: source.kind === 'report' ? { report_id: source.id } : { filter_id: source.id },
      sql: source.sql,
      parameters: req.parameters,
      paramsHash: slot.paramsHash,
      createdBy: req.actor,
    }).then(() => undefined);
    const recorded: Promise<void> = insert
      .catch(() => {})
      .finally(() => {
        if (slot.recorded === recorded) slot.recorded = null;
      });
    slot.recorded = recorded;
    const run = async () => {
      const job = queryJob(
        { executionId: id, organizationId: req.organizationId, datasourceId: source.datasourceId, maxConcurrent: source.maxConcurrent },
        compiled,
        slot.paramsHash,
      );
      await insert;
      // Ends early with internal_error if the run's lease runs out (its runtime died: engine/lease.ts).
      const out = await dispatch({ env: this.env }, job, this.query);
      if (slot.executionId !== id) return;
      slot.executionStatus = out.status;
      if (out.status === 'success') {
        Object.assign(slot, { dataKey: out.dataKey, rowCount: out.rowCount, dataTimestamp: Date.now(), error: null });
      } else {
        slot.error = { code: out.status, message: out.errorMessage ?? out.status };
        slot.errorAt = Date.now();
      }
      if (source.kind === 'report') {
        await this.sql`update reports set query_error = ${out.status === 'success' ? null : out.errorMessage}, updated_at = updated_at
          where id = ${source.id}`.catch(() => {});
      } else if (out.status === 'success') {
        await this.sql`update filters set last_query_success = now(), last_query_error_message = null, options_refreshed_at = now()
          where id = ${source.id}`.catch(() => {});
      } else if (out.status !== 'cancelled') {
        await this.sql`update filters set last_query_error_message = ${out.errorMessage} where id = ${source.id}`.catch(() => {});
      }
    };
    slot.inFlight = run()
      .catch((err) => {
        if (slot.executionId === id) {
          slot.executionStatus = 'internal_error';
          slot.error = { code: 'internal_error', message: err instanceof Error ? err.message : String(err) };
          slot.errorAt = Date.now();
        }
      })
      .finally(() => {
        if (slot.executionId === id) slot.inFlight = null;
      });
  }

  private view(source: Source, snap: Snapshot, slot: Slot | null, error: StatusEntry['error']): StatusEntry {
    const ts = slot?.dataTimestamp ?? null;
    const hasData = !!slot?.dataKey;
    const running = !!slot?.inFlight;
    const err = error ?? slot?.error ?? null;
    return {
      id: source.id,
      kind: source.kind,
      result_status: err && !running ? 'error' : hasData ? (slot!.rowCount ? 'success' : 'no_data') : running ? 'running' : 'running',
      data_key: slot?.rowCount ? slot.dataKey : null,
      data_timestamp: ts ? new Date(ts).toISOString() : null,
      data_current: !!ts && !isStale(ts, Date.now(), source.refreshMinutes, source.anchor, snap.organizationTimeZone),
      execution_id: slot?.executionId ?? null,
      execution_status: slot?.executionStatus ?? null,
      running,
      row_count: slot?.rowCount ?? null,
      error: err && !running ? err : null,
    };
  }
}
