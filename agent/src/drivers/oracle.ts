import type { AgentDatasource } from '@cairn/core/agent-protocol';
import {
  AgentFailure,
  connectionFailure,
  messageOf,
  testBy,
  type Driver,
  type ResultOut,
  type RunRequest,
  type SchemaOptions,
  type SchemaRow,
} from './driver.ts';
import { oracleColumn, oracleDataType, otherCell } from './other-types.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- node-oracledb is loaded on demand and typed loosely here */
let loaded: Promise<any> | null = null;
/** node-oracledb in its default thin mode (pure JavaScript, no Oracle client libraries). */
const oracledb = () => (loaded ??= import('oracledb').then((m: any) => m.default ?? m));

const portOf = (ds: AgentDatasource) => ds.port ?? 1521;

async function open(ds: AgentDatasource): Promise<any> {
  const o = await oracledb();
  try {
    return await o.getConnection({
      user: ds.user,
      password: ds.password ?? '',
      connectString: `${ds.host}:${portOf(ds)}/${ds.database ?? ''}`,
      connectTimeout: 10,
    });
  } catch (err) {
    throw connectionFailure(ds, portOf(ds), err);
  }
}

/** `$1`-style placeholders become Oracle's `:1`. */
const positional = (sql: string) => sql.replace(/\$(\d+)/g, ':$1');

/** Oracle through node-oracledb thin mode (wired and type-mapped; not proven against a server here — see the docs). */
export const oracleDriver: Driver = {
  async run(ds, req: RunRequest, out: ResultOut, signal: AbortSignal) {
    const o = await oracledb();
    const conn = await open(ds);
    conn.callTimeout = req.timeoutMs;
    let cancelled = false;
    const onAbort = () => {
      cancelled = true;
      conn.break().catch(() => {});
    };
    try {
      signal.addEventListener('abort', onAbort, { once: true });
      await conn.execute(`ALTER SESSION SET TIME_ZONE = '${req.timeZone.replace(/'/g, "''")}'`).catch(() => {});
      await new Promise<void>((resolve, reject) => {
        let kinds: number[] = [];
        const stream = conn.queryStream(positional(req.text), req.values, { outFormat: o.OUT_FORMAT_ARRAY, fetchArraySize: 500 });
        stream.on('metadata', (meta: { name: string; dbTypeName: string }[]) => {
          const mapped = meta.map((m) => oracleColumn(m.name, m.dbTypeName));
          kinds = mapped.map((c) => (c.family === 'other' ? c.kind : 13));
          out.columns(mapped);
        });
        stream.on('data', (row: unknown[]) => {
          if (!out.row(row.map((v, i) => otherCell(kinds[i]!, v)))) {
            stream.pause();
            void out.drained().then(() => stream.resume());
          }
        });
        stream.on('error', reject);
        stream.on('end', () => stream.destroy());
        stream.on('close', () => resolve());
      });
    } catch (err) {
      if (err instanceof AgentFailure) throw err;
      const msg = messageOf(err);
      if (cancelled) throw new AgentFailure('cancelled', 'The query was cancelled.');
      if (/DPI-1067|NJS-123|call timeout/i.test(msg)) throw new AgentFailure('timed_out', msg);
      throw new AgentFailure('query_error', msg);
    } finally {
      signal.removeEventListener('abort', onAbort);
      await conn.close().catch(() => {});
    }
  },

  test: (ds) =>
    testBy(ds, async () => {
      const conn = await open(ds);
      try {
        return conn.oracleServerVersionString ?? null;
      } finally {
        await conn.close().catch(() => {});
      }
    }),

  async schema(ds, opts: SchemaOptions) {
    const o = await oracledb();
    const conn = await open(ds);
    try {
      const res = await conn.execute(
        `select owner, table_name, column_name, data_type, num_rows from (
           select c.owner, c.table_name, c.column_name, c.data_type, t.num_rows, c.column_id
             from all_tab_columns c left join all_tables t on t.owner = c.owner and t.table_name = c.table_name
            where c.owner not in ('SYS', 'SYSTEM', 'XDB', 'MDSYS', 'CTXSYS', 'ORDSYS', 'OUTLN', 'DBSNMP', 'APPQOSSYS', 'WMSYS', 'OJVMSYS', 'GSMADMIN_INTERNAL', 'LBACSYS', 'DVSYS', 'AUDSYS', 'OLAPSYS'))
          order by owner, table_name, column_id`,
        [],
        { outFormat: o.OUT_FORMAT_ARRAY },
      );
      let wanted = opts.included_schemas?.length ? opts.included_schemas : null;
      if (opts.name) wanted = wanted && !wanted.includes(opts.name) ? [] : [opts.name];
      const rows: SchemaRow[] = (res.rows as unknown[][])
        .filter((r) => !wanted || wanted.includes(String(r[0])))
        .map((r) => [String(r[0]), String(r[1]), String(r[2]), String(r[3]), oracleDataType(String(r[3])), r[4] === null ? null : Number(r[4])]);
      return { rows, exact: false };
    } catch (err) {
      throw err instanceof AgentFailure ? err : new AgentFailure('query_error', messageOf(err));
    } finally {
      await conn.close().catch(() => {});
    }
  },
};
