import { describe, expect, it } from 'vitest';
import { parseRecent, RECENT_LIMIT, withVisit } from './recent-dashboards';

describe('recent dashboards', () => {
  it('puts the opened dashboard first, once, and keeps at most the limit', () => {
    let list = withVisit([], { id: 'a', name: 'A' }, 1);
    list = withVisit(list, { id: 'b', name: 'B' }, 2);
    list = withVisit(list, { id: 'a', name: 'A renamed' }, 3);
    expect(list).toEqual([
      { id: 'a', name: 'A renamed', at: 3 },
      { id: 'b', name: 'B', at: 2 },
    ]);
    for (let i = 0; i < 20; i++) list = withVisit(list, { id: `d${i}`, name: `D${i}` }, 10 + i);
    expect(list).toHaveLength(RECENT_LIMIT);
    expect(list[0]!.id).toBe('d19');
  });

  it('reads only well-formed entries from storage', () => {
    expect(parseRecent(null)).toEqual([]);
    expect(parseRecent('not json')).toEqual([]);
    expect(parseRecent('{"id":"a"}')).toEqual([]);
    expect(parseRecent(JSON.stringify([{ id: 'a', name: 'A', at: 1 }, { id: 2, name: 'x', at: 1 }, null, { id: 'b', name: 'B' }]))).toEqual([
      { id: 'a', name: 'A', at: 1 },
    ]);
  });
});
