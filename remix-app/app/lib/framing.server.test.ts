import { describe, expect, it } from 'vitest';
import { applyFraming, framingPolicy } from './framing.server';

describe('framing policy', () => {
  it('lets any site frame a sharing link page, and no site any other page', () => {
    expect(framingPolicy('/s/3Jk9xQ2mPw7rT4vL8nZc')).toBe('any-site');
    expect(framingPolicy('/s/3Jk9xQ2mPw7rT4vL8nZc/')).toBe('any-site');
    for (const path of [
      '/',
      '/app/',
      '/app/dashboards/dsh_1',
      '/embedding/overview',
      '/render/tok',
      '/s/tok/status',
      '/s/tok/download/rep_1',
      '/s/',
      '/sx/tok',
    ])
      expect(framingPolicy(path), path).toBe('none');
  });

  it('writes one policy: frame-ancestors * without X-Frame-Options, or none in both headers', () => {
    const open = new Headers({ 'X-Frame-Options': 'SAMEORIGIN' });
    applyFraming(open, 'any-site');
    expect(open.get('X-Frame-Options')).toBeNull();
    expect(open.get('Content-Security-Policy')).toBe('frame-ancestors *');

    const closed = new Headers({ 'Content-Security-Policy': "frame-ancestors *; img-src 'self'" });
    applyFraming(closed, 'none');
    expect(closed.get('X-Frame-Options')).toBe('DENY');
    expect(closed.get('Content-Security-Policy')).toBe("img-src 'self'; frame-ancestors 'none'");
  });
});
