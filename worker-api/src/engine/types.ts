import type { DataType } from '@cairn/core';

/** Postgres type oids → Cairn data types. */
const PG: Record<number, DataType> = {
  16: 'Boolean', 20: 'BigInt', 21: 'Integer', 23: 'Integer', 26: 'Integer', 700: 'Float', 701: 'Float', 1700: 'Float',
  790: 'Float', 25: 'String', 1043: 'String', 1042: 'String', 19: 'String', 18: 'String', 2950: 'String', 869: 'String',
  114: 'JSON', 3802: 'JSON', 1114: 'DateTime', 1184: 'DateTime', 1082: 'Date', 1083: 'Time', 1266: 'Time',
  1186: 'String', 17: 'Binary', 2249: 'Record', 2287: 'Record',
  1000: 'Array<Boolean>', 1005: 'Array<Integer>', 1007: 'Array<Integer>', 1016: 'Array<BigInt>', 1021: 'Array<Float>',
  1022: 'Array<Float>', 1231: 'Array<Float>', 1009: 'Array<String>', 1015: 'Array<String>', 1014: 'Array<String>',
  1115: 'Array<DateTime>', 1185: 'Array<DateTime>', 1182: 'Array<Date>', 199: 'Array<JSON>', 3807: 'Array<JSON>',
};

export function pgDataType(oid: number): DataType {
  return PG[oid] ?? 'Other';
}

const DIMENSIONS = new Set<DataType>(['String', 'Boolean', 'Date', 'DateTime', 'Time']);
export const isDimension = (t: DataType) => DIMENSIONS.has(t);
