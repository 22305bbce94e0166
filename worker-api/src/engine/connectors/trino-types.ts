import { formatOffset, fromWall, isTimeZone, type DataType } from '@cairn/core';
import { Kind, type EncodedColumn } from '../types.ts';

/** A Trino/Presto type name (`varchar(3)`, `decimal(10,2)`, `array(integer)`, `timestamp(3) with time zone`) → data type and value kind. */
function classify(type: string): { data_type: DataType; kind: Kind } {
  const t = type.trim().toLowerCase();
  const base = t.replace(/\(.*$/s, '').trim();
  if (base === 'boolean') return { data_type: 'Boolean', kind: Kind.Bool };
  if (base === 'tinyint' || base === 'smallint' || base === 'integer' || base === 'int') return { data_type: 'Integer', kind: Kind.Int };
  if (base === 'bigint') return { data_type: 'BigInt', kind: Kind.BigInt };
  if (base === 'real' || base === 'double') return { data_type: 'Float', kind: Kind.Float };
  if (base === 'decimal') return { data_type: 'Float', kind: Kind.Decimal };
  if (base === 'varchar' || base === 'char' || base === 'uuid' || base === 'ipaddress') return { data_type: 'String', kind: Kind.Text };
  if (base === 'varbinary') return { data_type: 'Binary', kind: Kind.Binary };
  if (base === 'json') return { data_type: 'JSON', kind: Kind.Json };
  if (base === 'date') return { data_type: 'Date', kind: Kind.Date };
  if (base === 'timestamp') return { data_type: 'DateTime', kind: Kind.DateTime };
  if (base === 'time') return { data_type: 'Time', kind: Kind.Time };
  if (base === 'array') {
    const inner = classify(/^array\((.*)\)$/s.exec(t)?.[1] ?? '');
    const element = inner.data_type.startsWith('Array') || inner.data_type === 'Record' ? 'Other' : inner.data_type;
    return { data_type: `Array<${element}>` as DataType, kind: Kind.Json };
  }
  if (base === 'row' || base === 'map') return { data_type: 'Record', kind: Kind.Json };
  return { data_type: 'Other', kind: Kind.Other };
}

export function trinoColumn(name: string, type: string): EncodedColumn {
  const { data_type, kind } = classify(type);
  return { name, data_type, kind, db_type: type };
}

export function trinoTypeToDataType(type: string): DataType {
  return classify(type).data_type;
}

/** The wall clock and offset of a `timestamp with time zone` as Trino writes it (`… UTC`, `… +01:00`, `… Europe/Berlin`). */
export function zonedTimestamp(value: string): string {
  const m = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?) (.+)$/.exec(value);
  if (!m) return value;
  const [, wall, zone] = m as unknown as [string, string, string];
  if (zone === 'UTC' || zone === 'Z' || zone === 'Etc/UTC') return wall;
  if (/^[+-]\d{2}:\d{2}$/.test(zone)) return `${wall}${zone}`;
  try {
    // A named zone: the offset in force at that wall clock, by the one rule of core/src/time.ts.
    const wallMs = Date.parse(`${wall.replace(' ', 'T')}Z`);
    if (!Number.isFinite(wallMs) || !isTimeZone(zone)) return value;
    return `${wall}${formatOffset(wallMs - fromWall(zone, wallMs))}`;
  } catch {
    return value;
  }
}
