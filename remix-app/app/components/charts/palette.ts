/** Colour schemes scheme_1 … scheme_8 of a dashboard (scheme_6 is the default). */
const SCHEMES: Record<string, string[]> = {
  scheme_1: ['#2563eb', '#0ea5e9', '#14b8a6', '#22c55e', '#84cc16', '#eab308', '#f97316', '#ef4444'],
  scheme_2: ['#7c3aed', '#a855f7', '#d946ef', '#ec4899', '#f43f5e', '#fb7185', '#f59e0b', '#10b981'],
  scheme_3: ['#0f766e', '#0d9488', '#14b8a6', '#2dd4bf', '#5eead4', '#0891b2', '#0284c7', '#1d4ed8'],
  scheme_4: ['#b45309', '#d97706', '#f59e0b', '#fbbf24', '#65a30d', '#15803d', '#0f766e', '#1e40af'],
  scheme_5: ['#334155', '#475569', '#64748b', '#94a3b8', '#0ea5e9', '#6366f1', '#a855f7', '#ec4899'],
  scheme_6: ['#4f46e5', '#06b6d4', '#f59e0b', '#10b981', '#ec4899', '#8b5cf6', '#f97316', '#64748b'],
  scheme_7: ['#dc2626', '#ea580c', '#d97706', '#ca8a04', '#65a30d', '#059669', '#0891b2', '#2563eb'],
  scheme_8: ['#1e3a8a', '#1d4ed8', '#3b82f6', '#60a5fa', '#93c5fd', '#0e7490', '#0891b2', '#22d3ee'],
};

export function paletteFor(scheme: string | undefined | null): string[] {
  return SCHEMES[scheme ?? ''] ?? SCHEMES.scheme_6!;
}

/** The scheme's colours starting at `start` (a chart's color_start), the skipped ones appended at the end. */
export function rotatePalette(palette: string[], start: number | undefined): string[] {
  if (!start || palette.length === 0) return palette;
  const s = ((Math.round(start) % palette.length) + palette.length) % palette.length;
  return [...palette.slice(s), ...palette.slice(0, s)];
}
