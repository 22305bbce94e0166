import type { BaseDataType, DataType } from '@cairn/core';
import { Kind, type EncodedColumn } from '../types.ts';

/** What mysql2 tells about a result column (its ColumnDefinition). */
export interface MysqlField {
  name: string;
  columnType: number;
  columnLength: number;
  characterSet: number;
  flags: number;
  extendedTypeName?: string;
  extendedFormat?: string;
}

const BINARY_CHARSET = 63;
const UNSIGNED = 32;
const ENUM = 256;
const SET = 2048;

const c = (name: string, data_type: DataType, kind: Kind, db_type: string): EncodedColumn => ({ name, data_type, kind, db_type });

/** A result column from its protocol type code (MySQL and MariaDB share them). */
export function mysqlColumn(f: MysqlField): EncodedColumn {
  const unsigned = f.flags & UNSIGNED ? ' unsigned' : '';
  const binary = f.characterSet === BINARY_CHARSET;
  if (f.extendedFormat === 'json') return c(f.name, 'JSON', Kind.Json, 'json');
  if (f.extendedTypeName) return c(f.name, 'String', Kind.Text, f.extendedTypeName); // uuid, inet4, inet6
  switch (f.columnType) {
    case 0:
    case 246:
      return c(f.name, 'Float', Kind.Decimal, `decimal${unsigned}`);
    case 1:
      return f.columnLength === 1 ? c(f.name, 'Boolean', Kind.Bool, 'tinyint(1)') : c(f.name, 'Integer', Kind.Int, `tinyint${unsigned}`);
    case 2:
      return c(f.name, 'Integer', Kind.Int, `smallint${unsigned}`);
    case 3:
      return c(f.name, 'Integer', Kind.Int, `int${unsigned}`);
    case 9:
      return c(f.name, 'Integer', Kind.Int, `mediumint${unsigned}`);
    case 13:
      return c(f.name, 'Integer', Kind.Int, 'year');
    case 8:
      return c(f.name, 'BigInt', Kind.BigInt, `bigint${unsigned}`);
    case 4:
      return c(f.name, 'Float', Kind.Float, 'float');
    case 5:
      return c(f.name, 'Float', Kind.Float, 'double');
    case 6:
      return c(f.name, 'Other', Kind.Other, 'null');
    case 7:
      return c(f.name, 'DateTime', Kind.DateTime, 'timestamp');
    case 12:
      return c(f.name, 'DateTime', Kind.DateTime, 'datetime');
    case 10:
    case 14:
      return c(f.name, 'Date', Kind.Date, 'date');
    case 11:
      return c(f.name, 'Time', Kind.Time, 'time');
    case 16:
      return f.columnLength === 1 ? c(f.name, 'Boolean', Kind.Bool, 'bit(1)') : c(f.name, 'BigInt', Kind.BigInt, `bit(${f.columnLength})`);
    case 245:
      return c(f.name, 'JSON', Kind.Json, 'json');
    case 247:
      return c(f.name, 'String', Kind.Text, 'enum');
    case 248:
      return c(f.name, 'String', Kind.Text, 'set');
    case 249:
    case 250:
    case 251:
    case 252:
      return binary ? c(f.name, 'Binary', Kind.Binary, 'blob') : c(f.name, 'String', Kind.Text, 'text');
    case 15:
    case 253:
      return binary ? c(f.name, 'Binary', Kind.Binary, 'varbinary') : c(f.name, 'String', Kind.Text, stringType(f, 'varchar'));
    case 254:
      return binary ? c(f.name, 'Binary', Kind.Binary, 'binary') : c(f.name, 'String', Kind.Text, stringType(f, 'char'));
    case 255:
      return c(f.name, 'Other', Kind.Other, 'geometry');
    case 242:
      return c(f.name, 'Array<Float>', Kind.Other, 'vector');
    default:
      return c(f.name, 'Other', Kind.Other, `type ${f.columnType}`);
  }
}

function stringType(f: MysqlField, plain: string): string {
  if (f.flags & ENUM) return 'enum';
  if (f.flags & SET) return 'set';
  return plain;
}

/** information_schema DATA_TYPE (and COLUMN_TYPE for the boolean spellings) → data type. */
const BY_NAME: Record<string, BaseDataType> = {
  tinyint: 'Integer',
  smallint: 'Integer',
  mediumint: 'Integer',
  int: 'Integer',
  integer: 'Integer',
  year: 'Integer',
  bigint: 'BigInt',
  bit: 'BigInt',
  decimal: 'Float',
  numeric: 'Float',
  float: 'Float',
  double: 'Float',
  real: 'Float',
  char: 'String',
  varchar: 'String',
  tinytext: 'String',
  text: 'String',
  mediumtext: 'String',
  longtext: 'String',
  enum: 'String',
  set: 'String',
  uuid: 'String',
  inet4: 'String',
  inet6: 'String',
  json: 'JSON',
  date: 'Date',
  datetime: 'DateTime',
  timestamp: 'DateTime',
  time: 'Time',
  binary: 'Binary',
  varbinary: 'Binary',
  tinyblob: 'Binary',
  blob: 'Binary',
  mediumblob: 'Binary',
  longblob: 'Binary',
};

export function mysqlTypeNameToDataType(dataType: string, columnType: string): DataType {
  const ct = columnType.toLowerCase();
  if (ct === 'tinyint(1)' || ct === 'bit(1)') return 'Boolean';
  if (ct.startsWith('vector')) return 'Array<Float>';
  return BY_NAME[dataType.toLowerCase()] ?? 'Other';
}
