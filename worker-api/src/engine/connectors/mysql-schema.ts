import type { SchemaData, SchemaOptions, SchemaTable } from './connector.ts';
import { mysqlTypeNameToDataType } from './mysql-types.ts';

const SYSTEM = ['information_schema', 'mysql', 'performance_schema', 'sys'];
/** Engines whose TABLE_ROWS is exact; InnoDB's is an estimate. */
const EXACT_ENGINES = new Set(['MyISAM', 'Aria', 'MEMORY', 'CSV']);

type Query = (sql: string, values: unknown[]) => Promise<unknown[][]>;

/**
 * Which databases to list. In MySQL a schema is a database, so `included_databases` and
 * `included_schemas` both restrict the list (to the names in both when both are given); without
 * either it is the datasource's own database, or every database but the system ones.
 */
function wantedDatabases(own: string | undefined, opts: SchemaOptions): string[] | null {
  const lists = [opts.included_databases, opts.included_schemas].filter((l): l is string[] => Boolean(l?.length));
  let wanted: string[] | null = lists.length ? lists.reduce((a, b) => a.filter((x) => b.includes(x))) : own ? [own] : null;
  if (opts.name) wanted = wanted && !wanted.includes(opts.name) ? [] : [opts.name];
  return wanted;
}

export async function mysqlSchema(query: Query, own: string | undefined, opts: SchemaOptions): Promise<SchemaData> {
  const wanted = wantedDatabases(own, opts);
  if (wanted && wanted.length === 0) return { schemas: [] };
  const filter = wanted ? `c.TABLE_SCHEMA in (${wanted.map(() => '?').join(', ')})` : `c.TABLE_SCHEMA not in (${SYSTEM.map(() => '?').join(', ')})`;
  const rows = await query(
    `select c.TABLE_SCHEMA, c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, c.DATA_TYPE, t.TABLE_ROWS, t.ENGINE, t.TABLE_TYPE
       from information_schema.COLUMNS c
       join information_schema.TABLES t on t.TABLE_SCHEMA = c.TABLE_SCHEMA and t.TABLE_NAME = c.TABLE_NAME
      where ${filter}
      order by c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION`,
    wanted ?? SYSTEM,
  );
  const schemas = new Map<string, Map<string, SchemaTable>>();
  let total = 0;
  let exact = true;
  for (const [schema, tableName, column, columnType, dataType, tableRows, engine, tableType] of rows as string[][]) {
    let tables = schemas.get(schema!);
    if (!tables) schemas.set(schema!, (tables = new Map()));
    let table = tables.get(tableName!);
    if (!table) {
      tables.set(tableName!, (table = { name: tableName!, columns: [] }));
      if (opts.rowCounts && tableType !== 'VIEW' && tableRows !== null && tableRows !== undefined) {
        table.row_count = Number(tableRows);
        total += table.row_count;
        if (!EXACT_ENGINES.has(String(engine))) exact = false;
      }
    }
    table.columns.push({ name: column!, db_type: String(columnType), data_type: mysqlTypeNameToDataType(String(dataType), String(columnType)) });
  }
  const data: SchemaData = { schemas: [...schemas].map(([name, tables]) => ({ name, tables: [...tables.values()] })) };
  if (opts.rowCounts) Object.assign(data, { total_row_count: total, total_row_count_exact: exact });
  return data;
}
