import type postgres from 'postgres';
import type { SchemaData, SchemaOptions, SchemaTable } from './connector.ts';
import { pgTypeNameToDataType } from './postgres-types.ts';
import type { PgSource } from './postgres-source.ts';

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

/**
 * Which schemas to list: `name` alone if given, else `included_schemas`, else everything but the
 * system schemas. The sample datasource only ever shows `sample_shop`.
 */
function wantedSchemas(source: PgSource, opts: SchemaOptions): string[] | null {
  let wanted = opts.included_schemas?.length ? opts.included_schemas : null;
  if (source.sample) wanted = ['sample_shop'];
  if (opts.name) wanted = wanted && !wanted.includes(opts.name) ? [] : [opts.name];
  return wanted;
}

/** Postgres: tables, views, materialized views and foreign tables the user may read, from pg_catalog. */
const PG_COLUMNS = `
select n.nspname as schema_name, c.relname as table_name, a.attname as column_name,
       format_type(a.atttypid, a.atttypmod) as db_type,
       case ty.typtype
         when 'e' then 'text' when 'r' then 'text' when 'm' then 'text' when 'c' then 'record'
         when 'd' then format_type(ty.typbasetype, ty.typtypmod)
         else format_type(a.atttypid, a.atttypmod) end as map_type,
       case when c.relkind in ('r', 'm', 'p') then c.reltuples::float8 end as estimate,
       case when c.relkind in ('r', 'm') then pg_relation_size(c.oid)::float8 end as bytes
  from pg_catalog.pg_class c
  join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  join pg_catalog.pg_type ty on ty.oid = a.atttypid
 where c.relkind in ('r', 'v', 'm', 'f', 'p') and not c.relispartition
   and ($1::text[] is null or n.nspname = any($1::text[]))
   and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'
   and has_schema_privilege(n.oid, 'USAGE') and has_table_privilege(c.oid, 'SELECT')
 order by n.nspname, c.relname, a.attnum`;

/** Redshift and CrateDB: information_schema, which both keep. */
const INFO_COLUMNS = `
select table_schema as schema_name, table_name, column_name, data_type as db_type, data_type as map_type,
       null::float8 as estimate, null::float8 as bytes
  from information_schema.columns
 where table_schema not in ('pg_catalog', 'information_schema', 'sys', 'pg_internal')
 order by table_schema, table_name, ordinal_position`;

export async function pgSchema(sql: postgres.Sql, source: PgSource, opts: SchemaOptions): Promise<SchemaData> {
  const wanted = wantedSchemas(source, opts);
  const rows = source.family === 'postgres'
    ? await sql.begin('read only', async (tx) => {
      return tx.unsafe<ColumnRow[]>(PG_COLUMNS, [wanted ? textArray(wanted) : null]);
    })
    : (await sql.unsafe<ColumnRow[]>(INFO_COLUMNS)).filter((r) => !wanted || wanted.includes(r.schema_name));

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
