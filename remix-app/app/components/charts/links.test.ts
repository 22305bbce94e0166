import { describe, expect, it } from 'vitest';
import { cellHref } from './links';

describe('cellHref', () => {
  it('links absolute http and https addresses', () => {
    expect(cellHref('https://example.com/a?b=1#c')).toBe('https://example.com/a?b=1#c');
    expect(cellHref('  http://example.com ')).toBe('http://example.com/');
    expect(cellHref('HTTPS://Example.com/x')).toBe('https://example.com/x');
  });

  it('leaves every other value plain', () => {
    for (const v of [
      'javascript:alert(1)',
      'JavaScript://example.com/%0Aalert(1)',
      'data:text/html,<b>x</b>',
      'mailto:a@example.com',
      'ftp://example.com',
      '//example.com',
      '/relative/path',
      'example.com',
      'see https://example.com',
      'https://exa mple.com',
      'http://',
      '',
      null,
      42,
      true,
    ]) {
      expect(cellHref(v)).toBeNull();
    }
  });
});
