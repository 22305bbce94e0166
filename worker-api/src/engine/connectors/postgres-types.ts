import type { BaseDataType, DataType } from '@cairn/core';
import { Kind, type EncodedColumn } from '../types.ts';

/** A Postgres type as Cairn sees it: data type, how values are written, the type's name. */
interface PgType {
  name: string;
  data_type: BaseDataType | 'Record';
  kind: Kind;
}

const t = (name: string, data_type: BaseDataType | 'Record', kind: Kind): PgType => ({ name, data_type, kind });

/** Built-in types by oid (the oids are fixed in every Postgres and in the wire-compatible family). */
const BY_OID = new Map<number, PgType>([
  [16, t('bool', 'Boolean', Kind.Bool)],
  [17, t('bytea', 'Binary', Kind.Binary)],
  [18, t('char', 'String', Kind.Text)],
  [19, t('name', 'String', Kind.Text)],
  [20, t('int8', 'BigInt', Kind.BigInt)],
  [21, t('int2', 'Integer', Kind.Int)],
  [23, t('int4', 'Integer', Kind.Int)],
  [25, t('text', 'String', Kind.Text)],
  [114, t('json', 'JSON', Kind.Json)],
  [142, t('xml', 'String', Kind.Text)],
  [650, t('cidr', 'String', Kind.Text)],
  [700, t('float4', 'Float', Kind.Float)],
  [701, t('float8', 'Float', Kind.Float)],
  [705, t('unknown', 'String', Kind.Text)],
  [774, t('macaddr8', 'String', Kind.Text)],
  [790, t('money', 'String', Kind.Text)],
  [829, t('macaddr', 'String', Kind.Text)],
  [869, t('inet', 'String', Kind.Text)],
  [1042, t('bpchar', 'String', Kind.Text)],
  [1043, t('varchar', 'String', Kind.Text)],
  [1082, t('date', 'Date', Kind.Date)],
  [1083, t('time', 'Time', Kind.Time)],
  [1114, t('timestamp', 'DateTime', Kind.DateTime)],
  [1184, t('timestamptz', 'DateTime', Kind.DateTime)],
  [1186, t('interval', 'String', Kind.Text)],
  [1266, t('timetz', 'Time', Kind.Time)],
  [1560, t('bit', 'String', Kind.Text)],
  [1562, t('varbit', 'String', Kind.Text)],
  [1700, t('numeric', 'Float', Kind.Decimal)],
  [2249, t('record', 'Record', Kind.Other)],
  [2950, t('uuid', 'String', Kind.Text)],
  [3614, t('tsvector', 'String', Kind.Text)],
  [3615, t('tsquery', 'String', Kind.Text)],
  [3802, t('jsonb', 'JSON', Kind.Json)],
  [4072, t('jsonpath', 'String', Kind.Text)],
  [3904, t('int4range', 'String', Kind.Text)],
  [3906, t('numrange', 'String', Kind.Text)],
  [3908, t('tsrange', 'String', Kind.Text)],
  [3910, t('tstzrange', 'String', Kind.Text)],
  [3912, t('daterange', 'String', Kind.Text)],
  [3926, t('int8range', 'String', Kind.Text)],
  // System identifiers: Internal. oid is a number; the others are written as their text.
  [26, t('oid', 'Internal', Kind.Int)],
  [22, t('int2vector', 'Internal', Kind.Text)],
  [24, t('regproc', 'Internal', Kind.Text)],
  [27, t('tid', 'Internal', Kind.Text)],
  [28, t('xid', 'Internal', Kind.Text)],
  [29, t('cid', 'Internal', Kind.Text)],
  [30, t('oidvector', 'Internal', Kind.Text)],
  [194, t('pg_node_tree', 'Internal', Kind.Text)],
  [1033, t('aclitem', 'Internal', Kind.Text)],
  [2202, t('regprocedure', 'Internal', Kind.Text)],
  [2203, t('regoper', 'Internal', Kind.Text)],
  [2205, t('regclass', 'Internal', Kind.Text)],
  [2206, t('regtype', 'Internal', Kind.Text)],
  [3220, t('pg_lsn', 'Internal', Kind.Text)],
  [4089, t('regnamespace', 'Internal', Kind.Text)],
  [4096, t('regrole', 'Internal', Kind.Text)],
  [5069, t('xid8', 'Internal', Kind.Text)],
]);

/** Array types by oid → element oid. */
const ARRAY_OF = new Map<number, number>([
  [1000, 16],
  [1001, 17],
  [1002, 18],
  [1003, 19],
  [1016, 20],
  [1005, 21],
  [1007, 23],
  [1009, 25],
  [199, 114],
  [143, 142],
  [651, 650],
  [1021, 700],
  [1022, 701],
  [775, 774],
  [791, 790],
  [1040, 829],
  [1041, 869],
  [1014, 1042],
  [1015, 1043],
  [1182, 1082],
  [1183, 1083],
  [1115, 1114],
  [1185, 1184],
  [1187, 1186],
  [1270, 1266],
  [1561, 1560],
  [1563, 1562],
  [1231, 1700],
  [2951, 2950],
  [3807, 3802],
  [1028, 26],
  [1006, 22],
  [1008, 24],
  [1010, 27],
  [1011, 28],
  [1012, 29],
  [1013, 30],
  [1034, 1033],
  [2210, 2205],
  [2211, 2206],
  [3643, 3614],
  [3645, 3615],
]);

/** A result column of the given type oid. Unknown types (enums, extensions) are Other, written as text. */
export function pgColumn(name: string, oid: number): EncodedColumn {
  const base = BY_OID.get(oid);
  if (base) return { name, data_type: base.data_type, db_type: base.name, kind: base.kind };
  const elementOid = ARRAY_OF.get(oid);
  const element = elementOid === undefined ? undefined : BY_OID.get(elementOid);
  if (element) {
    const data_type: DataType = element.data_type === 'Record' ? 'Array<Other>' : `Array<${element.data_type}>`;
    return { name, data_type, db_type: `_${element.name}`, kind: Kind.Array, elementKind: element.kind };
  }
  if (oid === 2287) return { name, data_type: 'Array<Other>', db_type: '_record', kind: Kind.Array, elementKind: Kind.Other };
  return { name, data_type: 'Other', db_type: `oid ${oid}`, kind: Kind.Other };
}

/** Type names as `format_type` and information_schema spell them → data types (for the schema browser). */
const BY_NAME: Record<string, BaseDataType | 'Record'> = {
  boolean: 'Boolean',
  bool: 'Boolean',
  smallint: 'Integer',
  integer: 'Integer',
  int: 'Integer',
  int2: 'Integer',
  int4: 'Integer',
  smallserial: 'Integer',
  serial: 'Integer',
  bigint: 'BigInt',
  int8: 'BigInt',
  bigserial: 'BigInt',
  real: 'Float',
  'double precision': 'Float',
  float4: 'Float',
  float8: 'Float',
  float: 'Float',
  numeric: 'Float',
  decimal: 'Float',
  double: 'Float',
  text: 'String',
  'character varying': 'String',
  varchar: 'String',
  character: 'String',
  char: 'String',
  bpchar: 'String',
  '"char"': 'String',
  name: 'String',
  uuid: 'String',
  citext: 'String',
  xml: 'String',
  inet: 'String',
  cidr: 'String',
  macaddr: 'String',
  macaddr8: 'String',
  money: 'String',
  interval: 'String',
  bit: 'String',
  'bit varying': 'String',
  tsvector: 'String',
  tsquery: 'String',
  string: 'String',
  ip: 'String',
  json: 'JSON',
  jsonb: 'JSON',
  object: 'JSON',
  super: 'JSON',
  'timestamp without time zone': 'DateTime',
  'timestamp with time zone': 'DateTime',
  timestamp: 'DateTime',
  timestamptz: 'DateTime',
  date: 'Date',
  'time without time zone': 'Time',
  'time with time zone': 'Time',
  time: 'Time',
  timetz: 'Time',
  bytea: 'Binary',
  varbyte: 'Binary',
  record: 'Record',
  oid: 'Internal',
  regclass: 'Internal',
  regproc: 'Internal',
  regtype: 'Internal',
  xid: 'Internal',
  tid: 'Internal',
  cid: 'Internal',
  pg_lsn: 'Internal',
  aclitem: 'Internal',
  pg_node_tree: 'Internal',
};

/** `character varying(255)` → String, `integer[]` → Array<Integer>, `numeric(10,2)` → Float. */
export function pgTypeNameToDataType(typeName: string): DataType {
  let name = typeName.trim().toLowerCase();
  let array = false;
  if (name.endsWith('[]')) {
    array = true;
    name = name.replace(/(\[\])+$/, '');
  } else if (name.startsWith('array(') || name === 'array') {
    // CrateDB spells arrays array(type); information_schema says ARRAY.
    array = true;
    name = name === 'array' ? '' : name.slice(6, -1);
  }
  // Drop modifiers: varchar(10), numeric(10,2), timestamp(3) with time zone.
  name = name
    .replace(/\(\s*[\d\s,]+\)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (name.startsWith('_')) {
    array = true;
    name = name.slice(1);
  }
  const base = BY_NAME[name] ?? 'Other';
  if (!array) return base;
  return base === 'Record' ? 'Array<Other>' : `Array<${base}>`;
}
