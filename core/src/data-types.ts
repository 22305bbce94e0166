/** The data types of result fields and schema columns (spec 02 §3). */
export const DATA_TYPES = ['Boolean', 'Integer', 'BigInt', 'Float', 'String', 'JSON', 'DateTime', 'Date', 'Time', 'Binary', 'Internal', 'Other'] as const;
export type BaseDataType = (typeof DATA_TYPES)[number];
/** Arrays and records are written as `Array<Integer>` and `Record`. */
export type DataType = BaseDataType | `Array<${BaseDataType}>` | 'Record';

export interface ResultField {
  idx: number;
  name: string;
  data_type: DataType;
  unique_count: number | null;
  human_name: string;
  min_value: unknown;
  max_value: unknown;
  group_by: boolean;
}

/** "order_total_eur" → "Order Total Eur". */
export function humanName(name: string): string {
  return name
    .replace(/[_\s]+/g, ' ')
    .trim()
    .replace(/\b\w/g, (c) => c.toUpperCase());
}
