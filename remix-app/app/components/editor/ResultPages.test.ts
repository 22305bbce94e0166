import { describe, expect, it } from 'vitest';
import { downloadHref, pageLabel } from './ResultPages';

describe('the editor’s result pages', () => {
  it('labels a page with its rows and the total', () => {
    expect(pageLabel(2000, 2000, 200000)).toBe('Rows 2,001–4,000 of 200,000');
    expect(pageLabel(0, 12, 12)).toBe('Rows 1–12 of 12');
  });

  it('downloads the whole result of the run from its execution, named after the report', () => {
    const href = downloadHref('exe_1/x', 'xlsx', 'Orders by day');
    const url = new URL(href, 'http://app');
    expect(url.pathname).toBe('/app/reports/executions/exe_1%2Fx/download');
    expect(url.searchParams.get('format')).toBe('xlsx');
    expect(url.searchParams.get('name')).toBe('Orders by day');
  });
});
