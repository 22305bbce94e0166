import type postgres from 'postgres';
import type { SchemaData, SchemaOptions, SchemaTable } from './connector.ts';
import { pgTypeNameToDataType } from './postgres-types.ts';
import type { PgSource } from './postgres-source.ts';
import { INFO_SCHEMA_COLUMNS, PG_SCHEMA_COLUMNS, wantedSchemas } from '@cairn/core/pg/schema-sql';

/** Tables smaller than this are counted exactly when the catalog has no estimate for them. */
const EXACT_COUNT_MAX_BYTES = 8 * 1024 * 1024;

interface ColumnRow {
  schema_name: string;
  table_name: string;
  column_name: string;
  db_type: string;
  map_type: string;
  estimate: number | null;
  bytes: number | null;
}

/** A Postgres text[] literal for a bound parameter: `{"a","b\"c"}`. */
function textArray(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/** Which schemas to list; the sample datasource only ever shows `sample_shop`. */
function wantedFor(source: PgSource, opts: SchemaOptions): string[] | null {
  return wantedSchemas(opts, source.sample ? ['sample_shop'] : undefined);
}

export async function pgSchema(sql: postgres.Sql, source: PgSource, opts: SchemaOptions): Promise<SchemaData> {
  const wanted = wantedFor(source, opts);
  const rows =
    source.family === 'postgres'
      ? await sql.begin('read only', async (tx) => {
          return tx.unsafe<ColumnRow[]>(PG_SCHEMA_COLUMNS, [wanted ? textArray(wanted) : null]);
        })
      : (await sql.unsafe<ColumnRow[]>(INFO_SCHEMA_COLUMNS)).filter((r) => !wanted || wanted.includes(r.schema_name));

  const schemas = new Map<string, Map<string, SchemaTable>>();
  const estimates = new Map<SchemaTable, { estimate: number | null; bytes: number | null; schema: string }>();
  for (const r of rows as ColumnRow[]) {
    let tables = schemas.get(r.schema_name);
    if (!tables) schemas.set(r.schema_name, (tables = new Map()));
    let table = tables.get(r.table_name);
    if (!table) {
      tables.set(r.table_name, (table = { name: r.table_name, columns: [] }));
      estimates.set(table, { estimate: r.estimate, bytes: r.bytes, schema: r.schema_name });
    }
    table.columns.push({ name: r.column_name, db_type: r.db_type, data_type: pgTypeNameToDataType(r.map_type) });
  }
  const data: SchemaData = {
    schemas: [...schemas].map(([name, tables]) => ({ name, tables: [...tables.values()] })),
  };
  if (opts.rowCounts && source.family === 'postgres') Object.assign(data, await rowCounts(sql, source, estimates));
  return data;
}

/**
 * Row counts from the catalog's estimates (pg_class.reltuples). A table the planner has never
 * analysed has none; if it is small it is counted exactly, otherwise it has no count.
 */
async function rowCounts(
  sql: postgres.Sql,
  source: PgSource,
  estimates: Map<SchemaTable, { estimate: number | null; bytes: number | null; schema: string }>,
): Promise<Pick<SchemaData, 'total_row_count' | 'total_row_count_exact'>> {
  let total = 0;
  let exact = true;
  const toCount: [SchemaTable, string][] = [];
  for (const [table, e] of estimates) {
    if (e.estimate === null) continue;
    const unknown = e.estimate < 0 || (e.estimate === 0 && (e.bytes ?? 0) > 0);
    if (unknown && e.bytes !== null && e.bytes <= EXACT_COUNT_MAX_BYTES) {
      toCount.push([table, e.schema]);
      continue;
    }
    if (unknown) {
      exact = false;
      continue;
    }
    table.row_count = Math.round(e.estimate);
    total += table.row_count;
    exact = false;
  }
  if (toCount.length) {
    const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
    const counted = await sql.begin('read only', async (tx) => {
      const union = toCount.map(([t, s], i) => `select ${i} as i, count(*)::float8 as n from ${ident(s)}.${ident(t.name)}`).join(' union all ');
      return tx.unsafe<{ i: number; n: number }[]>(union);
    });
    for (const { i, n } of counted) {
      toCount[i]![0].row_count = n;
      total += n;
    }
  }
  return { total_row_count: total, total_row_count_exact: exact };
}
