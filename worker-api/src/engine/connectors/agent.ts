import type { DataType } from '@cairn/core';
import type { AgentCell, AgentColumn, AgentDatasource } from '@cairn/core/agent-protocol';
import type { AgentHub, CallAnswer } from '../../durable/agent-hub.ts';
import { MAX_BACKLOG, ResultWriter, type ResultSummary, type RowSink } from '../result.ts';
import type { EncodedColumn, Kind } from '../types.ts';
import {
  DEFAULT_TIMEOUT_MS,
  type CancelHandle,
  type ConnectionTestResult,
  type Connector,
  type Query,
  type RunOptions,
  type SchemaData,
  type SchemaOptions,
  type SchemaTable,
} from './connector.ts';
import { ConnectorError, cancelled, timedOut } from './errors.ts';
import { mysqlColumn, mysqlTypeNameToDataType } from './mysql-types.ts';
import { pgColumn, pgTypeNameToDataType } from './postgres-types.ts';
import { agentHubStub } from '../../durable/stubs.ts';

export type AgentHubNamespace = DurableObjectNamespace<AgentHub>;

/** The agent's Durable Object (one per datasource_agents row). */
export function hubOf(ns: AgentHubNamespace, agentRowId: string) {
  return agentHubStub(ns, agentRowId);
}

/** An agent a datasource names: its row id and name (for messages). */
export interface AgentRef {
  id: string;
  name: string;
}

/** How long past the statement timeout the agent gets to report it before the run stops waiting. */
const GRACE_MS = 5_000;
const utf8 = new TextEncoder();

function column(c: AgentColumn): EncodedColumn {
  if (c.family === 'postgres') return pgColumn(c.name, c.oid);
  if (c.family === 'mysql') return mysqlColumn({ name: c.name, ...c.field });
  return { name: c.name, db_type: c.db_type, data_type: c.data_type as DataType, kind: c.kind as Kind };
}

function cellValue(v: AgentCell): unknown {
  if (v !== null && typeof v === 'object') return Uint8Array.from(atob(v.b64), (ch) => ch.charCodeAt(0));
  return v;
}

/** One schema row an agent reports: schema, table, column, db type, type name to map, row count. */
type SchemaRow = [string, string, string, string, string, number | null];

/**
 * A datasource reached through a datasource agent (connection_mode agent): every operation goes to
 * the agent's Durable Object, which hands it to the agent process over its WebSocket; the agent runs
 * it with its Node driver. Result columns are mapped here with the direct connectors' own type maps
 * (Postgres OIDs, MySQL column definitions), and rows go through the same ResultWriter, so the
 * stored result is the same as a direct run's. With several agents, the first connected one runs it.
 */
export class AgentConnector implements Connector {
  constructor(
    private readonly ns: AgentHubNamespace | undefined,
    private readonly agents: AgentRef[],
    private readonly ds: AgentDatasource,
  ) {}

  private label(a: AgentRef) {
    return `"${a.name}"`;
  }

  /** The first connected agent, else the first one (whose answer then says it is not connected). */
  private async pick(): Promise<{ agent: AgentRef; hub: ReturnType<typeof hubOf> }> {
    if (!this.ns) throw new ConnectorError('connection_error', 'Datasource agents are not available on this server (the AGENT_HUB binding is missing).');
    if (!this.agents.length) throw new ConnectorError('connection_error', 'The datasource names no agent; choose one in its settings.');
    for (const agent of this.agents) {
      const hub = hubOf(this.ns, agent.id);
      if ((await hub.state()).connected) return { agent, hub };
    }
    return { agent: this.agents[0]!, hub: hubOf(this.ns, this.agents[0]!.id) };
  }

  async run(query: Query, sink: RowSink, opts: RunOptions = {}): Promise<ResultSummary> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const { agent, hub } = await this.pick();
    const started = await hub.start({
      ds: this.ds,
      text: query.text,
      values: query.values,
      timeoutMs,
      timeZone: opts.timeZone ?? 'UTC',
      label: this.label(agent),
    });
    if (!started.ok) throw new ConnectorError(started.kind, started.message);
    const id = started.id;
    const handle: CancelHandle = { family: 'agent', agent: agent.id, query_id: id };
    await opts.onCancelHandle?.(handle);
    let stopped: 'cancelled' | 'timed_out' | null = null;
    const stop = (why: 'cancelled' | 'timed_out') => {
      if (stopped) return;
      stopped = why;
      hub.cancel(id).catch(() => {});
    };
    const onAbort = () => stop('cancelled');
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => stop('timed_out'), timeoutMs + GRACE_MS);
    let writer: ResultWriter | null = null;
    let pgText = false;
    try {
      for (;;) {
        const frames = await hub.next(id);
        for (const f of frames) {
          if (f.t === 'columns') {
            const cols = f.columns.map(column);
            pgText = f.columns.every((c) => c.family === 'postgres');
            writer = new ResultWriter(cols);
            await sink.columns?.(cols.map(({ name, data_type, db_type }) => ({ name, data_type, db_type })));
          } else if (f.t === 'rows') {
            if (!writer) throw new ConnectorError('connection_error', 'The agent sent rows before their columns.');
            for (const row of f.rows) {
              if (pgText) writer.textRow(row.map((v) => (v === null ? null : utf8.encode(String(v)))));
              else writer.valueRow(row.map(cellValue));
            }
            await writer.flow(sink, MAX_BACKLOG);
          } else if (f.t === 'error') {
            if (f.kind === 'cancelled' || stopped === 'cancelled') throw cancelled();
            if (f.kind === 'timed_out' || stopped === 'timed_out') throw timedOut(timeoutMs);
            throw new ConnectorError(f.kind, f.message);
          } else {
            writer ??= new ResultWriter([]);
            await writer.drain(sink, true);
            if (stopped === 'cancelled') throw cancelled();
            return writer.summary();
          }
        }
        if (stopped && !frames.length) throw stopped === 'cancelled' ? cancelled() : timedOut(timeoutMs);
      }
    } catch (err) {
      if (!(err instanceof ConnectorError)) hub.cancel(id).catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  async cancel(handle: CancelHandle): Promise<boolean> {
    if (handle.family !== 'agent' || !this.ns) return false;
    return hubOf(this.ns, handle.agent).cancel(handle.query_id);
  }

  async testConnection(): Promise<ConnectionTestResult> {
    const { agent, hub } = await this.pick();
    const answer = (await hub.call('test', this.ds, this.label(agent))) as CallAnswer;
    if (!answer.ok) return { status: 'error', error_message: answer.message, server_version: null };
    const v = answer.value as { status?: string; error_message?: string | null; server_version?: string | null };
    return v.status === 'ok'
      ? { status: 'ok', error_message: null, server_version: v.server_version ?? null }
      : { status: 'error', error_message: v.error_message ?? 'The agent could not connect.', server_version: null };
  }

  async schema(opts: SchemaOptions = {}): Promise<SchemaData> {
    const { agent, hub } = await this.pick();
    const answer = (await hub.call('schema', this.ds, this.label(agent), { ...opts })) as CallAnswer;
    if (!answer.ok) throw new ConnectorError(answer.kind, answer.message);
    const { rows, exact } = answer.value as { rows: SchemaRow[]; exact: boolean };
    const mysql = this.ds.database_type === 'mysql' || this.ds.database_type === 'mariadb';
    const pg = this.ds.database_type === 'postgres' || this.ds.database_type === 'redshift';
    const schemas = new Map<string, Map<string, SchemaTable>>();
    let total = 0;
    for (const [schema, tableName, col, dbType, mapType, count] of rows) {
      let tables = schemas.get(schema);
      if (!tables) schemas.set(schema, (tables = new Map()));
      let table = tables.get(tableName);
      if (!table) {
        tables.set(tableName, (table = { name: tableName, columns: [] }));
        if (opts.rowCounts && count !== null) {
          table.row_count = count;
          total += count;
        }
      }
      const data_type = pg ? pgTypeNameToDataType(mapType) : mysql ? mysqlTypeNameToDataType(mapType, dbType) : (mapType as DataType);
      table.columns.push({ name: col, db_type: dbType, data_type });
    }
    const data: SchemaData = { schemas: [...schemas].map(([name, tables]) => ({ name, tables: [...tables.values()] })) };
    if (opts.rowCounts) Object.assign(data, { total_row_count: total, total_row_count_exact: exact });
    return data;
  }
}
