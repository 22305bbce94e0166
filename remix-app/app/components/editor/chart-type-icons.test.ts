import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CHART_TYPES } from '../charts/config';
import { ChartTypePicker } from './ChartConfigEditor';

describe('chart type picker icons', () => {
  const html = renderToStaticMarkup(createElement(ChartTypePicker, { value: 'bar', onPick: () => {} }));
  it.each(CHART_TYPES)('the %s icon is drawn as SVG shapes, not a font glyph', (type) => {
    const button = html.match(new RegExp(`<button[^>]*data-testid="chart-type-${type}"[^>]*>(.*?)</button>`))?.[1];
    expect(button).toBeDefined();
    const icon = button!.match(/<svg[^>]*class="chart-types__icon"[^>]*>(.*?)<\/svg>/)?.[1];
    expect(icon, `${type} has an SVG icon`).toBeDefined();
    expect(icon).toMatch(/<(path|polyline|rect|circle)\b[^>]*\b(d|points|width|r)="[^"]+"/);
    // Nothing but shapes inside: no text that depends on the browser's fonts.
    expect(icon!.replace(/<[^>]+>/g, '').trim()).toBe('');
  });
});
