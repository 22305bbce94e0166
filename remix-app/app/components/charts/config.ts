/** The chart_configuration shapes the app draws (see notes/contracts.md). Anything else is shown as a table. */
export type ChartConfig =
  | { type: 'bar'; x: string; y: string[]; layout: 'vertical' | 'horizontal' }
  | { type: 'line'; x: string; y: string[] }
  | { type: 'pie'; label: string; value: string }
  | { type: 'number'; value: string; compare?: string; prefix?: string; suffix?: string }
  | { type: 'table' };

export type ChartType = ChartConfig['type'];

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
const strList = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s.length > 0) : typeof v === 'string' && v ? [v] : [];

/** Reads a report's opaque chart_configuration; a shape it cannot draw becomes `null` with the reason. */
export function parseChartConfig(raw: unknown): { config: ChartConfig; problem?: string } {
  const c = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const type = str(c.type) ?? 'table';
  switch (type) {
    case 'bar': {
      const x = str(c.x), y = strList(c.y);
      if (!x || y.length === 0) return { config: { type: 'table' }, problem: 'The bar chart needs "x" and "y" columns.' };
      return { config: { type, x, y, layout: c.layout === 'horizontal' ? 'horizontal' : 'vertical' } };
    }
    case 'line': {
      const x = str(c.x), y = strList(c.y);
      if (!x || y.length === 0) return { config: { type: 'table' }, problem: 'The line chart needs "x" and "y" columns.' };
      return { config: { type, x, y } };
    }
    case 'pie': {
      const label = str(c.label), value = str(c.value);
      if (!label || !value) return { config: { type: 'table' }, problem: 'The pie chart needs "label" and "value" columns.' };
      return { config: { type, label, value } };
    }
    case 'number': {
      const value = str(c.value);
      if (!value) return { config: { type: 'table' }, problem: 'The number needs a "value" column.' };
      return { config: { type, value, compare: str(c.compare), prefix: typeof c.prefix === 'string' ? c.prefix : undefined, suffix: typeof c.suffix === 'string' ? c.suffix : undefined } };
    }
    case 'table':
      return { config: { type: 'table' } };
    default:
      return { config: { type: 'table' }, problem: `The chart type "${type}" is not drawn yet; showing the data as a table.` };
  }
}
