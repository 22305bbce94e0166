/**
 * The schema read of the Postgres family, shared by the API's direct connector
 * (worker-api/src/engine/connectors/postgres-schema.ts) and the agent's (agent/src/drivers/postgres.ts),
 * so both list the same relations with the same columns. Both statements answer, in this order:
 * schema_name, table_name, column_name, db_type (as shown), map_type (the type the data type is mapped
 * from), estimate (the catalog's row estimate or null), bytes (the relation's size or null).
 */

/**
 * Postgres: tables, views, materialized views and foreign tables the user may read, from pg_catalog.
 * `$1` is a text[] of the schemas wanted, or null for all but the system schemas.
 */
export const PG_SCHEMA_COLUMNS = `
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

/** Redshift and CrateDB: information_schema, which both keep (no estimates; filtered by the caller). */
export const INFO_SCHEMA_COLUMNS = `
select table_schema as schema_name, table_name, column_name, data_type as db_type, data_type as map_type,
       null::float8 as estimate, null::float8 as bytes
  from information_schema.columns
 where table_schema not in ('pg_catalog', 'information_schema', 'sys', 'pg_internal')
 order by table_schema, table_name, ordinal_position`;

/**
 * Which schemas to list: `name` alone if given, else `included_schemas`, else everything (null) but the
 * system schemas.
 */
export function wantedSchemas(opts: { name?: string | null; included_schemas?: string[] | null }, only?: string[]): string[] | null {
  let wanted = only ?? (opts.included_schemas?.length ? opts.included_schemas : null);
  if (opts.name) wanted = wanted && !wanted.includes(opts.name) ? [] : [opts.name];
  return wanted;
}
