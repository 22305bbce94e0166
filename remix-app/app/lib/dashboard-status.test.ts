import { describe, expect, it } from 'vitest';
import {
  dataAge,
  INITIAL_TILE,
  isTransientStatusError,
  nextTile,
  optionsFrom,
  STATUS_RETRYING,
  statusRetryDelay,
  tileAfterStatusFailure,
  type StatusEntry,
  type TileState,
} from './dashboard-status';
import { newReportErrors } from '../components/sharing/embed-events';

const entry = (over: Partial<StatusEntry>): StatusEntry => ({
  result_status: 'running',
  data_key: null,
  data_access_token: null,
  data_timestamp: null,
  data_current: false,
  execution_id: 'exe_1',
  execution_status: 'running',
  running: true,
  row_count: null,
  ...over,
});

describe('status entries', () => {
  it('asks for the result once per data key and keeps shown data while a newer run goes on', () => {
    const ready = entry({
      result_status: 'success',
      data_key: 'eu/k1',
      data_access_token: 't1',
      data_timestamp: '2026-01-01T00:00:00Z',
      data_current: true,
      running: false,
    });
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
    expect(nextTile(INITIAL_TILE, entry({ result_status: 'no_data', running: false }), 'Nothing here').tile).toMatchObject({
      phase: 'empty',
      message: 'Nothing here',
    });
    const failed = nextTile(
      INITIAL_TILE,
      entry({ result_status: 'error', running: false, error: { code: 'query_error', message: 'column "x" does not exist' } }),
      'x',
    );
    expect(failed.tile).toMatchObject({ phase: 'error', message: 'column "x" does not exist', running: false });
    expect(nextTile(INITIAL_TILE, entry({}), 'x').tile.phase).toBe('loading');
  });

  it('reads dropdown options: first column values, second labels, no duplicates or NULLs', () => {
    expect(optionsFrom({ fields: [], rows: [['DE', 'Germany'], ['FR', null], [null, 'x'], ['DE', 'Again'], [3]] })).toEqual([
      { value: 'DE', label: 'Germany' },
      { value: 'FR', label: 'FR' },
      { value: '3', label: '3' },
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

describe('a failed status call', () => {
  const loading: TileState = { ...INITIAL_TILE };
  const ready: TileState = { ...INITIAL_TILE, phase: 'ready', running: false, result: { fields: [], rows: [[1]] }, dataKey: 'eu/k1' };
  const failedReport: TileState = { ...INITIAL_TILE, phase: 'error', running: false, message: 'column "x" does not exist' };
  const transient = [
    { status: 503, code: 'service_unavailable', message: 'The database is unavailable.' },
    { status: 500, code: 'internal_error', message: 'Something went wrong.' },
    { status: 429, code: 'rate_limited', message: 'Too many requests.' },
    { status: 0, code: 'network', message: 'Failed to fetch' },
    { status: 502, code: 'bad_response', message: 'The server answered 502.' },
  ];

  it('on the way (5xx, 429, no answer) is no report error: tiles keep what they show and say the page is retrying', () => {
    for (const error of transient) {
      expect(isTransientStatusError(error), error.code).toBe(true);
      const tiles = [loading, ready, failedReport].map((t) => tileAfterStatusFailure(t, error));
      expect(
        tiles.map((t) => t.phase),
        error.code,
      ).toEqual(['loading', 'ready', 'error']);
      expect(
        tiles.map((t) => t.retrying),
        error.code,
      ).toEqual([STATUS_RETRYING, STATUS_RETRYING, STATUS_RETRYING]);
      expect(tiles[1]!.result).toEqual(ready.result);
      // The server's message is nowhere in a tile, and the report's own error stays its own.
      expect(
        tiles.map((t) => t.message),
        error.code,
      ).toEqual([null, null, 'column "x" does not exist']);
      // An embedded page tells its parent only of the report that failed by itself, once.
      const told = new Map<string, string>();
      const named = tiles.map((t, i) => ({ reportId: `r${i}`, ...t }));
      expect(newReportErrors(named, told)).toEqual([{ report_id: 'r2', message: 'column "x" does not exist' }]);
      expect(
        newReportErrors(
          named.map((t) => tileAfterStatusFailure(t, error)).map((t, i) => ({ reportId: `r${i}`, ...t })),
          told,
        ),
      ).toEqual([]);
    }
  });

  it('clears the retrying note with the next answer about the report', () => {
    const stalled = tileAfterStatusFailure(loading, transient[0]!);
    const answered = nextTile(stalled, entry({ result_status: 'no_data', running: false }), 'Nothing here').tile;
    expect(answered).toMatchObject({ phase: 'empty', retrying: null });
    expect(nextTile(stalled, entry({}), 'x').tile).toMatchObject({ phase: 'loading', retrying: null });
  });

  it('is a refusal otherwise (a link gone, parameters refused): the error of every tile without data', () => {
    const refused = { status: 422, code: 'invalid_parameter', message: 'No filter named "Country".' };
    expect(isTransientStatusError(refused)).toBe(false);
    expect(isTransientStatusError({ status: 404, code: 'not_found', message: 'gone' })).toBe(false);
    expect(tileAfterStatusFailure(loading, refused)).toMatchObject({ phase: 'error', message: 'No filter named "Country".', running: false, retrying: null });
    expect(tileAfterStatusFailure(ready, refused)).toMatchObject({ phase: 'ready', result: ready.result });
  });

  it('is asked again sooner at first, then less often; a 429 waits longer', () => {
    expect([1, 2, 3, 4, 5, 6, 20].map((n) => statusRetryDelay(n, 503))).toEqual([2, 4, 8, 16, 30, 30, 30]);
    expect([1, 2, 5].map((n) => statusRetryDelay(n, 429))).toEqual([10, 10, 30]);
  });
});
