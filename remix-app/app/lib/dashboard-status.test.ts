import { describe, expect, it } from 'vitest';
import { dataAge, INITIAL_TILE, nextTile, optionsFrom, type StatusEntry } from './dashboard-status';

const entry = (over: Partial<StatusEntry>): StatusEntry => ({
  result_status: 'running', data_key: null, data_access_token: null, data_timestamp: null, data_current: false,
  execution_id: 'exe_1', execution_status: 'running', running: true, row_count: null, ...over,
});

describe('status entries', () => {
  it('asks for the result once per data key and keeps shown data while a newer run goes on', () => {
    const ready = entry({ result_status: 'success', data_key: 'eu/k1', data_access_token: 't1', data_timestamp: '2026-01-01T00:00:00Z', data_current: true, running: false });
    const first = nextTile(INITIAL_TILE, ready, 'No data');
    expect(first.fetch).toEqual({ key: 'eu/k1', token: 't1' });
    const loaded = { ...first.tile, phase: 'ready' as const, result: { fields: [], rows: [[1]] }, dataKey: 'eu/k1' };
    expect(nextTile(loaded, ready, 'No data').fetch).toBeNull();
    // Stale data with a run under way: still shown, marked as running and not current.
    const rerun = nextTile(loaded, { ...ready, result_status: 'running', data_current: false, running: true }, 'No data');
    expect(rerun.tile).toMatchObject({ phase: 'ready', running: true, current: false, dataKey: 'eu/k1' });
    expect(nextTile(loaded, { ...ready, data_key: 'eu/k2', data_access_token: 't2' }, 'No data').fetch).toEqual({ key: 'eu/k2', token: 't2' });
  });

  it('shows the no-data message and the query error', () => {
    expect(nextTile(INITIAL_TILE, entry({ result_status: 'no_data', running: false }), 'Nothing here').tile).toMatchObject({ phase: 'empty', message: 'Nothing here' });
    const failed = nextTile(INITIAL_TILE, entry({ result_status: 'error', running: false, error: { code: 'query_error', message: 'column "x" does not exist' } }), 'x');
    expect(failed.tile).toMatchObject({ phase: 'error', message: 'column "x" does not exist', running: false });
    expect(nextTile(INITIAL_TILE, entry({}), 'x').tile.phase).toBe('loading');
  });

  it('reads dropdown options: first column values, second labels, no duplicates or NULLs', () => {
    expect(optionsFrom({ fields: [], rows: [['DE', 'Germany'], ['FR', null], [null, 'x'], ['DE', 'Again'], [3]] })).toEqual([
      { value: 'DE', label: 'Germany' }, { value: 'FR', label: 'FR' }, { value: '3', label: '3' },
    ]);
  });

  it('says how old the data is', () => {
    const now = Date.parse('2026-01-02T12:00:00Z');
    expect(dataAge('2026-01-02T11:59:40Z', now)).toBe('just now');
    expect(dataAge('2026-01-02T11:55:00Z', now)).toBe('5 min ago');
    expect(dataAge('2026-01-02T09:00:00Z', now)).toBe('3 h ago');
    expect(dataAge('2025-12-30T12:00:00Z', now)).toBe('3 days ago');
    expect(dataAge(null, now)).toBeNull();
  });
});
