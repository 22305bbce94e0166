import type { Cell, DataField } from '../../lib/types';

/** Looks up result columns by name; `idx` is the column's position in each row. */
export class Columns {
  private readonly byName = new Map<string, { field: DataField; index: number }>();
  constructor(readonly fields: DataField[]) {
    fields.forEach((field, position) => {
      const index = Number.isInteger(field.idx) ? field.idx : position;
      this.byName.set(field.name, { field, index });
    });
  }
  has(name: string): boolean {
    return this.byName.has(name);
  }
  field(name: string): DataField | undefined {
    return this.byName.get(name)?.field;
  }
  label(name: string): string {
    const f = this.field(name);
    return f?.human_name || name;
  }
  get(row: Cell[], name: string): Cell | undefined {
    const c = this.byName.get(name);
    return c ? row[c.index] : undefined;
  }
  /** The names in `wanted` that the result lacks. */
  missing(wanted: (string | undefined)[]): string[] {
    return wanted.filter((n): n is string => typeof n === 'string' && !this.byName.has(n));
  }
}
