import type { AgentCell, AgentColumn } from '@cairn/core/agent-protocol';
import { bytesCell } from './driver.ts';

/**
 * How the API writes a value (its `Kind`, worker-api/src/engine/types.ts) — repeated here because the
 * agent maps the types of the drivers whose columns the API has no map for (mssql, oracle).
 */
export const Kind = { Bool: 1, Int: 2, BigInt: 3, Float: 4, Decimal: 5, Text: 6, Json: 7, DateTime: 8, Date: 9, Time: 10, Binary: 11, Other: 13 } as const;

type Mapped = [data_type: string, kind: number];

/** SQL Server type names (tedious' `type.name`, lower-cased) → Cairn data type and value kind. */
const MSSQL: Record<string, Mapped> = {
  bit: ['Boolean', Kind.Bool],
  tinyint: ['Integer', Kind.Int],
  smallint: ['Integer', Kind.Int],
  int: ['Integer', Kind.Int],
  intn: ['Integer', Kind.Int],
  bigint: ['BigInt', Kind.BigInt],
  real: ['Float', Kind.Float],
  float: ['Float', Kind.Float],
  floatn: ['Float', Kind.Float],
  decimal: ['Float', Kind.Decimal],
  decimaln: ['Float', Kind.Decimal],
  numeric: ['Float', Kind.Decimal],
  numericn: ['Float', Kind.Decimal],
  money: ['Float', Kind.Decimal],
  smallmoney: ['Float', Kind.Decimal],
  moneyn: ['Float', Kind.Decimal],
  char: ['String', Kind.Text],
  nchar: ['String', Kind.Text],
  varchar: ['String', Kind.Text],
  nvarchar: ['String', Kind.Text],
  text: ['String', Kind.Text],
  ntext: ['String', Kind.Text],
  uniqueidentifier: ['String', Kind.Text],
  uniqueidentifiern: ['String', Kind.Text],
  xml: ['String', Kind.Text],
  date: ['Date', Kind.Date],
  time: ['Time', Kind.Time],
  datetime: ['DateTime', Kind.DateTime],
  datetimen: ['DateTime', Kind.DateTime],
  datetime2: ['DateTime', Kind.DateTime],
  smalldatetime: ['DateTime', Kind.DateTime],
  datetimeoffset: ['DateTime', Kind.DateTime],
  binary: ['Binary', Kind.Binary],
  varbinary: ['Binary', Kind.Binary],
  image: ['Binary', Kind.Binary],
};

/** Oracle type names (node-oracledb's `dbTypeName`) → Cairn data type and value kind. */
const ORACLE: Record<string, Mapped> = {
  NUMBER: ['Float', Kind.Decimal],
  FLOAT: ['Float', Kind.Decimal],
  BINARY_FLOAT: ['Float', Kind.Float],
  BINARY_DOUBLE: ['Float', Kind.Float],
  BINARY_INTEGER: ['Integer', Kind.Int],
  BOOLEAN: ['Boolean', Kind.Bool],
  CHAR: ['String', Kind.Text],
  NCHAR: ['String', Kind.Text],
  VARCHAR2: ['String', Kind.Text],
  NVARCHAR2: ['String', Kind.Text],
  CLOB: ['String', Kind.Text],
  NCLOB: ['String', Kind.Text],
  LONG: ['String', Kind.Text],
  ROWID: ['String', Kind.Text],
  UROWID: ['String', Kind.Text],
  JSON: ['JSON', Kind.Json],
  DATE: ['DateTime', Kind.DateTime],
  TIMESTAMP: ['DateTime', Kind.DateTime],
  'TIMESTAMP WITH TIME ZONE': ['DateTime', Kind.DateTime],
  'TIMESTAMP WITH LOCAL TIME ZONE': ['DateTime', Kind.DateTime],
  RAW: ['Binary', Kind.Binary],
  'LONG RAW': ['Binary', Kind.Binary],
  BLOB: ['Binary', Kind.Binary],
};

/**
 * Vertica's type OIDs (its wire protocol's RowDescription; v_catalog.columns.data_type_id for base types)
 * → name, Cairn data type and value kind. Values arrive as the server's text. Binary types come as
 * Vertica's escaped text and are shown as such (String).
 */
const VERTICA: Record<number, [name: string, data_type: string, kind: number]> = {
  5: ['boolean', 'Boolean', Kind.Bool],
  6: ['int', 'BigInt', Kind.BigInt],
  7: ['float', 'Float', Kind.Float],
  8: ['char', 'String', Kind.Text],
  9: ['varchar', 'String', Kind.Text],
  115: ['long varchar', 'String', Kind.Text],
  10: ['date', 'Date', Kind.Date],
  11: ['time', 'Time', Kind.Time],
  15: ['timetz', 'Time', Kind.Time],
  12: ['timestamp', 'DateTime', Kind.DateTime],
  13: ['timestamptz', 'DateTime', Kind.DateTime],
  14: ['interval', 'String', Kind.Text],
  114: ['interval year to month', 'String', Kind.Text],
  16: ['numeric', 'Float', Kind.Decimal],
  20: ['uuid', 'String', Kind.Text],
  17: ['varbinary', 'String', Kind.Text],
  116: ['long varbinary', 'String', Kind.Text],
  117: ['binary', 'String', Kind.Text],
};

export function verticaColumn(name: string, oid: number): AgentColumn {
  const [db_type, data_type, kind] = VERTICA[oid] ?? [`oid ${oid}`, 'Other', Kind.Other];
  return { family: 'other', name, db_type, data_type, kind };
}

export const verticaDataType = (oid: number): string => VERTICA[oid]?.[1] ?? 'Other';

export function mssqlColumn(name: string, typeName: string): AgentColumn {
  const [data_type, kind] = MSSQL[typeName.toLowerCase()] ?? ['Other', Kind.Other];
  return { family: 'other', name, db_type: typeName.toLowerCase(), data_type, kind };
}

export function oracleColumn(name: string, typeName: string): AgentColumn {
  const [data_type, kind] = ORACLE[typeName.toUpperCase()] ?? ['Other', Kind.Other];
  return { family: 'other', name, db_type: typeName.toLowerCase(), data_type, kind };
}

export const mssqlDataType = (t: string) => (MSSQL[t.toLowerCase()] ?? ['Other'])[0];
export const oracleDataType = (t: string) => (ORACLE[t.toUpperCase().replace(/\(\d+\)/, '')] ?? ['Other'])[0];

/** A driver's JS value as the protocol carries it for a column of `kind` (dates in UTC ISO form). */
export function otherCell(kind: number, v: unknown): AgentCell {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) {
    const iso = v.toISOString();
    return kind === Kind.Date ? iso.slice(0, 10) : kind === Kind.Time ? iso.slice(11, 23) : iso;
  }
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return bytesCell(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' || typeof v === 'string') return v;
  return JSON.stringify(v);
}
