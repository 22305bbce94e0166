import { describe, expect, it } from 'vitest';
import { docsNavigationTarget, type ClickInfo } from './links';

const click = (href: string | null, extra: Partial<ClickInfo> = {}): ClickInfo => ({
  href,
  target: null,
  download: false,
  button: 0,
  modifier: false,
  defaultPrevented: false,
  ...extra,
});
const here = 'http://docs.test/filters/overview?x=1#top';

describe('docsNavigationTarget', () => {
  it('routes docs links, hash links and relative links', () => {
    expect(docsNavigationTarget(click('/filters/date-range#usage'), here)).toBe('/filters/date-range#usage');
    expect(docsNavigationTarget(click('#syntax'), here)).toBe('/filters/overview?x=1#syntax');
    expect(docsNavigationTarget(click('date'), here)).toBe('/filters/date');
    expect(docsNavigationTarget(click('/api/v2024-06-01'), here)).toBe('/api/v2024-06-01');
  });
  it('leaves other sites, the app and modified clicks to the browser', () => {
    expect(docsNavigationTarget(click('https://example.com/'), here)).toBeNull();
    expect(docsNavigationTarget(click('/app/'), here)).toBeNull();
    expect(docsNavigationTarget(click('/app'), here)).toBeNull();
    expect(docsNavigationTarget(click('/s/abc'), here)).toBeNull();
    expect(docsNavigationTarget(click('/filters/date', { modifier: true }), here)).toBeNull();
    expect(docsNavigationTarget(click('/filters/date', { target: '_blank' }), here)).toBeNull();
    expect(docsNavigationTarget(click('/filters/date', { button: 1 }), here)).toBeNull();
    expect(docsNavigationTarget(click('/x.pdf', { download: true }), here)).toBeNull();
    expect(docsNavigationTarget(click(null), here)).toBeNull();
  });
  it('treats /apple and /sql-snippets as docs pages', () => {
    expect(docsNavigationTarget(click('/apple'), here)).toBe('/apple');
    expect(docsNavigationTarget(click('/sql-snippets/overview'), here)).toBe('/sql-snippets/overview');
  });
});
