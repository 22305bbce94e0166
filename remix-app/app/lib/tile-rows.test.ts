import { describe, expect, it } from 'vitest';
import { CHART_ROW_CAP, cutNote, dataPageUrl, rowLimitOf, TABLE_PAGE_ROWS } from './tile-rows';

describe('tile row limits', () => {
  it('a table asks for one page, a chart for at most what it draws, never above the data server maximum', () => {
    expect(rowLimitOf({ type: 'table' })).toBe(TABLE_PAGE_ROWS);
    expect(rowLimitOf({})).toBe(TABLE_PAGE_ROWS);
    expect(rowLimitOf(null)).toBe(TABLE_PAGE_ROWS);
    expect(rowLimitOf({ type: 'line' })).toBe(CHART_ROW_CAP.line);
    // A histogram bins every value: it must not be cut where a line chart is.
    expect(rowLimitOf({ type: 'histogram' })).toBeGreaterThan(CHART_ROW_CAP.line);
    expect(rowLimitOf({ type: 'pivot' })).toBeGreaterThan(CHART_ROW_CAP.line);
    for (const cap of Object.values(CHART_ROW_CAP)) expect(cap).toBeLessThanOrEqual(100_000);
    expect(dataPageUrl('eu/o/e/k', 400, 200)).toBe('/app/data/eu/o/e/k?offset=400&limit=200');
  });

  it('notes a cut result only', () => {
    expect(cutNote(5000, 200000)).toBe('Showing the first 5,000 of 200,000 rows.');
    expect(cutNote(12, 12)).toBeNull();
    expect(cutNote(12, undefined)).toBeNull();
  });
});
