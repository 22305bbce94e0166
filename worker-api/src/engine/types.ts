import type { DataType } from '@cairn/core';

/**
 * How a column's values are written as JSON. Both database families describe each result column
 * with one of these kinds, so a value of a kind is serialised the same way whatever the driver:
 *
 * - Bool: `true` / `false` (Postgres `t`/`f`, MySQL 0/1 and BIT(1)).
 * - Int: a JSON number (fits a double exactly).
 * - BigInt: a JSON number when it is a safe integer (|n| < 2^53), else its exact digits as a string.
 * - Float: a JSON number; NaN and ±Infinity become null.
 * - Decimal: the database's exact digits as a JSON number (NaN / ±Infinity become null).
 * - Text: a JSON string.
 * - Json: the value itself, embedded as JSON.
 * - DateTime: `"YYYY-MM-DDTHH:MM:SS[.fraction]Z"`: values with an offset are moved to UTC; timestamps
 *   without time zone are written as they are, with `Z` too. Trailing zeros of the fraction are dropped.
 * - Date: `"YYYY-MM-DD"`. Time: `"HH:MM:SS[.fraction]"` (time with time zone keeps its offset).
 *   MySQL's zero dates (`0000-00-00`) become null; dates beyond year 9999, BC dates and infinities
 *   keep the database's text.
 * - Binary: the bytes as a base64 string.
 * - Array: a JSON array of the element kind (Postgres array values).
 * - Other: the database's text form as a JSON string.
 */
export const Kind = {
  Bool: 1,
  Int: 2,
  BigInt: 3,
  Float: 4,
  Decimal: 5,
  Text: 6,
  Json: 7,
  DateTime: 8,
  Date: 9,
  Time: 10,
  Binary: 11,
  Array: 12,
  Other: 13,
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

/** A result column as a connector describes it. */
export interface ResultColumn {
  name: string;
  /** Cairn's data type (spec 02 §3 "Data types"). */
  data_type: DataType;
  /** The database's own name of the type, e.g. `timestamptz`, `varchar`, `int unsigned`. */
  db_type: string;
}

/** A result column together with how its values are encoded. */
export interface EncodedColumn extends ResultColumn {
  kind: Kind;
  /** For arrays: the kind of the elements. */
  elementKind?: Kind;
}

const DIMENSIONS = new Set<DataType>(['String', 'Boolean', 'Date', 'DateTime', 'Time']);
export const isDimension = (t: DataType) => DIMENSIONS.has(t);
