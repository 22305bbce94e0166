import type { DataType } from '@cairn/core';
import { Kind, type EncodedColumn } from '../types.ts';

/** `Nullable(T)` and `LowCardinality(T)` describe storage, not the value: T is the type. */
function unwrapClickhouseType(type: string): string {
  let t = type.trim();
  for (;;) {
    const m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(t);
    if (!m) return t;
    t = m[1]!.trim();
  }
}

const INTEGER = /^U?Int(8|16|32)$/;
const BIGINT = /^U?Int(64|128|256)$/;

/** A ClickHouse type name → Cairn's data type and how its text values are written. */
function classify(type: string): { data_type: DataType; kind: Kind } {
  const t = unwrapClickhouseType(type);
  if (t === 'Bool' || t === 'Boolean') return { data_type: 'Boolean', kind: Kind.Bool };
  if (INTEGER.test(t)) return { data_type: 'Integer', kind: Kind.Int };
  if (BIGINT.test(t)) return { data_type: 'BigInt', kind: Kind.BigInt };
  if (t === 'Float32' || t === 'Float64') return { data_type: 'Float', kind: Kind.Float };
  if (/^Decimal(32|64|128|256)?\(/.test(t)) return { data_type: 'Float', kind: Kind.Decimal };
  if (t === 'String' || /^FixedString\(/.test(t) || t === 'UUID' || /^Enum(8|16)?\(/.test(t) || t === 'IPv4' || t === 'IPv6') {
    return { data_type: 'String', kind: Kind.Text };
  }
  if (t === 'Date' || t === 'Date32') return { data_type: 'Date', kind: Kind.Date };
  if (/^DateTime(64)?(\(.*\))?$/.test(t)) return { data_type: 'DateTime', kind: Kind.DateTime };
  if (t === 'JSON' || /^Object\('json'\)$/i.test(t)) return { data_type: 'JSON', kind: Kind.Json };
  const array = /^Array\((.*)\)$/.exec(t);
  if (array) {
    // Arrays of integers and decimals print as JSON arrays ([1,2]); others (['a'], floats with nan) keep the server's text.
    const inner = classify(array[1]!);
    if (inner.kind === Kind.Int || inner.kind === Kind.Decimal) {
      return { data_type: `Array<${inner.data_type}>` as DataType, kind: Kind.Json };
    }
    return { data_type: 'Other', kind: Kind.Other };
  }
  return { data_type: 'Other', kind: Kind.Other };
}

/** A result column from its name and ClickHouse type (the second header line of TabSeparatedWithNamesAndTypes). */
export function clickhouseColumn(name: string, type: string): EncodedColumn {
  const { data_type, kind } = classify(type);
  return { name, data_type, kind, db_type: type };
}

/** The data type of a schema column (system.columns.type). */
export function clickhouseTypeToDataType(type: string): DataType {
  return classify(type).data_type;
}
