import { describe, expect, it } from 'vitest';
import { fitLabel, LABEL_CHAR_PX, LABEL_LINE_PX } from './theme';
import { treemapLabel } from './views/HierarchyChart';

/** The label's estimated width never exceeds the box it is drawn in. */
const fits = (label: string, width: number, padding = 6) => label === '' || label.length * LABEL_CHAR_PX <= width - 2 * padding;

describe('treemap labels fit their cells', () => {
  it('a long label in a narrow cell is shortened with an ellipsis to the cell width', () => {
    const label = fitLabel('Electronics and home appliances', 90, 40);
    expect(label.endsWith('…')).toBe(true);
    expect(fits(label, 90)).toBe(true);
    expect('Electronics and home appliances'.startsWith(label.slice(0, -1))).toBe(true);
  });

  it('a cell too low or too narrow for any readable text has no label at all', () => {
    expect(fitLabel('Books', 200, LABEL_LINE_PX - 1)).toBe('');
    expect(fitLabel('Electronics', 30, 40)).toBe('');
  });

  it('a label that fits is kept whole', () => {
    expect(fitLabel('Books', 200, 40)).toBe('Books');
  });

  it('the cell shows name and value when both fit, else the name alone, else nothing', () => {
    expect(treemapLabel('Books', '1.2K', 300, 60)).toBe('Books · 1.2K');
    expect(treemapLabel('Books', '1.2K', 60, 60)).toBe('Books');
    expect(treemapLabel('Books', '1.2K', 20, 60)).toBe('');
    for (const w of [10, 25, 40, 55, 70, 85, 100, 150, 220, 400]) {
      const l = treemapLabel('Garden furniture and outdoor living', '12.3K', w, 30);
      expect(fits(l, w), `width ${w}: "${l}"`).toBe(true);
    }
  });
});
