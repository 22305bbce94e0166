import { humanName, type DataType, type ResultField } from '@cairn/core';
import { isDimension } from './types.ts';

const UNIQUE_CAP = 100_000;
const CHUNK_BYTES = 512 * 1024;

/** Turns driver values into JSON-ready values of the field's type. */
export function normalize(value: unknown, type: DataType): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return null;
    return type === 'Date' ? value.toISOString().slice(0, 10) : value.toISOString();
  }
  if ((type === 'BigInt' || type === 'Float' || type === 'Integer') && typeof value === 'string') {
    const n = Number(value);
    if (!Number.isFinite(n)) return value;
    // A bigint beyond 2^53 keeps its exact text.
    return type === 'BigInt' && !Number.isSafeInteger(n) ? value : n;
  }
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Uint8Array) return `\\x${[...value].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
  return value;
}

/**
 * Accumulates rows into JSON chunks (each a comma-separated list of row arrays) while computing the
 * statistics of each field: min, max and the number of distinct values.
 */
export class ResultBuilder {
  readonly chunks: { rows: number; data: string }[] = [];
  rowCount = 0;
  sizeInBytes = 0;
  private current: string[] = [];
  private currentBytes = 0;
  private readonly mins: unknown[];
  private readonly maxs: unknown[];
  private readonly uniques: Set<unknown>[];

  constructor(readonly columns: { name: string; type: DataType }[]) {
    this.mins = columns.map(() => null);
    this.maxs = columns.map(() => null);
    this.uniques = columns.map(() => new Set());
  }

  add(raw: unknown[]): void {
    const row = this.columns.map((c, i) => normalize(raw[i], c.type));
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      if (v === null || typeof v === 'object') continue;
      if (this.mins[i] === null || (v as number) < (this.mins[i] as number)) this.mins[i] = v;
      if (this.maxs[i] === null || (v as number) > (this.maxs[i] as number)) this.maxs[i] = v;
      const u = this.uniques[i]!;
      if (u.size < UNIQUE_CAP) u.add(v);
    }
    const text = JSON.stringify(row);
    this.current.push(text);
    this.currentBytes += text.length + 1;
    this.rowCount++;
    if (this.currentBytes >= CHUNK_BYTES) this.flush();
  }

  flush(): void {
    if (!this.current.length) return;
    const data = this.current.join(',');
    this.chunks.push({ rows: this.current.length, data });
    this.sizeInBytes += data.length;
    this.current = [];
    this.currentBytes = 0;
  }

  fields(): ResultField[] {
    return this.columns.map((c, idx) => ({
      idx,
      name: c.name,
      data_type: c.type,
      unique_count: this.uniques[idx]!.size,
      human_name: humanName(c.name),
      min_value: this.mins[idx] ?? null,
      max_value: this.maxs[idx] ?? null,
      group_by: isDimension(c.type),
    }));
  }
}
