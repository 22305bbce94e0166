import { describe, expect, it } from 'vitest';
import { canonicalDocPath, classifyDocPath } from './docs-routing';

describe('classifyDocPath', () => {
  it.each([
    ['/x/index', '/x'],
    ['/x.html', '/x'],
    ['/x/index.html', '/x'],
    ['/x/', '/x'],
    ['/x//y', '/x/y'],
    ['/index', '/'],
    ['/index.html', '/'],
    ['/filters/date-range/', '/filters/date-range'],
  ])('redirects %s to %s keeping the query', (path, target) => {
    expect(classifyDocPath(path, '?a=1&b=2')).toEqual({ kind: 'redirect', location: `${target}?a=1&b=2` });
  });

  it('keeps percent-encoding when redirecting', () => {
    expect(classifyDocPath('/caf%C3%A9/index')).toEqual({ kind: 'redirect', location: '/caf%C3%A9' });
  });

  it('looks canonical paths up as decoded routes', () => {
    expect(classifyDocPath('/')).toEqual({ kind: 'route', route: '/' });
    expect(classifyDocPath('/api/v2024-06-01')).toEqual({ kind: 'route', route: '/api/v2024-06-01' });
    expect(classifyDocPath('/caf%C3%A9')).toEqual({ kind: 'route', route: '/café' });
  });

  it('rejects an undecodable path with the documented message', () => {
    expect(classifyDocPath('/a%E0%A4%A/index')).toEqual({
      kind: 'bad-path',
      message: 'Pathname "/a%E0%A4%A/index" could not be decoded. This is likely caused by an invalid percent-encoding.',
    });
  });

  it('leaves the root alone', () => {
    expect(canonicalDocPath('/')).toBe('/');
    expect(canonicalDocPath('//')).toBe('/');
  });
});
