import { describe, expect, it, vi } from 'vitest';
import type { FilterDef } from '../../lib/filters';
import { contentHeight, embedMessage, isEmbedded, newReportErrors, postToParent, publicFilters, readSetFilters, settledSummary } from './embed-events';

function def(variable: string, controlType: FilterDef['controlType'], extra: Partial<FilterDef> = {}): FilterDef {
  return {
    id: variable,
    variable,
    label: variable,
    controlType,
    valueType: 'TEXT',
    builtin: false,
    required: false,
    defaultValue: '',
    validate: false,
    defaultToFirst: false,
    ranges: { relative: true, before: true, after: true, fromTo: true },
    allowedAggregations: null,
    parent: null,
    manualOptions: null,
    queryOptions: false,
    hidden: false,
    ...extra,
  };
}
const defs = [def('order_date', 'date_range', { valueType: 'DATE' }), def('city', 'input')];

describe('embed messages', () => {
  it('wraps every event in the versioned envelope', () => {
    expect(embedMessage('d1', { type: 'cairn:filters-changed', filters: { city: 'Oslo' }, tz: null })).toEqual({
      source: 'cairn',
      version: 1,
      dashboard_id: 'd1',
      type: 'cairn:filters-changed',
      filters: { city: 'Oslo' },
      tz: null,
    });
  });

  it('posts to the parent with targetOrigin * only when framed', () => {
    const postMessage = vi.fn();
    const framed = { parent: { postMessage } } as unknown as Window;
    postToParent(framed, 'd1', { type: 'cairn:report-error', report_id: 'r1', message: 'boom' });
    expect(postMessage).toHaveBeenCalledWith(
      { source: 'cairn', version: 1, dashboard_id: 'd1', type: 'cairn:report-error', report_id: 'r1', message: 'boom' },
      '*',
    );
    const top = { postMessage } as unknown as Window & { parent: unknown };
    top.parent = top;
    postMessage.mockClear();
    postToParent(top, 'd1', { type: 'cairn:report-error', report_id: 'r1', message: 'x' });
    expect(postMessage).not.toHaveBeenCalled();
    expect(isEmbedded(null)).toBe(false);
  });
});

describe('settledSummary', () => {
  it('is null while a tile loads or runs', () => {
    expect(
      settledSummary([
        { phase: 'ready', running: false },
        { phase: 'loading', running: true },
      ]),
    ).toBeNull();
    expect(settledSummary([{ phase: 'ready', running: true }])).toBeNull();
  });
  it('counts settled tiles by outcome', () => {
    expect(
      settledSummary([
        { phase: 'ready', running: false },
        { phase: 'error', running: false },
        { phase: 'empty', running: false },
        { phase: 'waiting', running: true },
      ]),
    ).toEqual({ total: 4, ready: 1, empty: 1, error: 1, waiting: 1 });
    expect(settledSummary([])).toEqual({ total: 0, ready: 0, empty: 0, error: 0, waiting: 0 });
  });
});

describe('newReportErrors', () => {
  it('tells each error once, again when its message changes or after a recovery', () => {
    const told = new Map<string, string>();
    const t = (phase: string, message: string | null) => [
      { reportId: 'r1', phase, message },
      { reportId: 'r2', phase: 'ready', message: null },
    ];
    expect(newReportErrors(t('error', 'bad'), told)).toEqual([{ report_id: 'r1', message: 'bad' }]);
    expect(newReportErrors(t('error', 'bad'), told)).toEqual([]);
    expect(newReportErrors(t('error', 'worse'), told)).toEqual([{ report_id: 'r1', message: 'worse' }]);
    expect(newReportErrors(t('ready', null), told)).toEqual([]);
    expect(newReportErrors(t('error', 'worse'), told)).toEqual([{ report_id: 'r1', message: 'worse' }]);
  });
  it('does not tell an error again when the report only ran again (loading, waiting) and failed the same way', () => {
    const told = new Map<string, string>();
    const t = (phase: string, message: string | null) => [{ reportId: 'r1', phase, message }];
    expect(newReportErrors(t('error', 'bad'), told)).toHaveLength(1);
    expect(newReportErrors(t('loading', null), told)).toEqual([]);
    expect(newReportErrors(t('error', 'bad'), told)).toEqual([]);
    expect(newReportErrors(t('waiting', null), told)).toEqual([]);
    expect(newReportErrors(t('error', 'bad'), told)).toEqual([]);
    expect(newReportErrors(t('empty', 'No data'), told)).toEqual([]);
    expect(newReportErrors(t('error', 'bad'), told)).toEqual([{ report_id: 'r1', message: 'bad' }]);
  });
});

describe('publicFilters', () => {
  it('drops unset values', () => expect(publicFilters({ a: '', b: 'x' })).toEqual({ b: 'x' }));
});

describe('readSetFilters', () => {
  it('ignores other messages', () => {
    expect(readSetFilters({ type: 'something' }, defs, null)).toBeNull();
    expect(readSetFilters('cairn:set-filters', defs, null)).toBeNull();
  });
  it('accepts values written as in the URL', () => {
    expect(readSetFilters({ type: 'cairn:set-filters', filters: { city: 'Oslo', order_date: '2024-01-01~2024-01-31' } }, defs, null)).toEqual({
      ok: true,
      values: { city: 'Oslo', order_date: '2024-01-01~2024-01-31' },
      tz: undefined,
    });
    expect(readSetFilters({ type: 'cairn:set-filters', filters: { city: '' }, tz: 'Europe/Oslo' }, defs, ['UTC', 'Europe/Oslo'])).toEqual({
      ok: true,
      values: { city: '' },
      tz: 'Europe/Oslo',
    });
  });
  it('refuses what the URL would refuse', () => {
    const bad = readSetFilters({ type: 'cairn:set-filters', filters: { nope: 'x', order_date: 'yesterday-ish', city: ['a'] }, tz: 'Mars/Base' }, defs, ['UTC']);
    expect(bad?.ok).toBe(false);
    expect(bad && !bad.ok ? bad.problems.length : 0).toBe(4);
    expect(readSetFilters({ type: 'cairn:set-filters', filters: [] }, defs, null)?.ok).toBe(false);
  });
  it('refuses a variable the signed address fixed, even with its own value, and changes nothing', () => {
    const fixed = new Set(['city']);
    expect(readSetFilters({ type: 'cairn:set-filters', filters: { city: 'Oslo' } }, defs, null, fixed)).toEqual({
      ok: false,
      problems: ['"city" is fixed by the signed address and cannot be changed.'],
    });
    const both = readSetFilters({ type: 'cairn:set-filters', filters: { order_date: 'last_7_days', city: '' } }, defs, null, fixed);
    expect(both).toEqual({ ok: false, problems: ['"city" is fixed by the signed address and cannot be changed.'] });
    expect(readSetFilters({ type: 'cairn:set-filters', filters: { order_date: 'last_7_days' } }, defs, null, fixed)).toEqual({
      ok: true,
      values: { order_date: 'last_7_days' },
      tz: undefined,
    });
  });
});

describe('contentHeight', () => {
  it('is the bottom edge of the content in the document, margin included, in whole pixels', () => {
    expect(contentHeight({ getBoundingClientRect: () => ({ bottom: 812.2 }) }, 0, 0)).toBe(813);
    expect(contentHeight({ getBoundingClientRect: () => ({ bottom: 400 }) }, 300, 16)).toBe(716);
    expect(contentHeight({ getBoundingClientRect: () => ({ bottom: -5 }) }, 0, 0)).toBe(0);
  });
});
