import { describe, expect, it } from 'vitest';
import { DocPathError, fileForRoute, normalizeDocPath, routeForPageFile } from '../src/paths.ts';
import { createSlugger, slugify } from '../src/slugger.ts';

describe('normalizeDocPath', () => {
  it.each([
    ['/', '/'],
    ['', '/'],
    ['/index', '/'],
    ['/index.html', '/'],
    ['/administration/api-keys/', '/administration/api-keys'],
    ['/administration/api-keys.html', '/administration/api-keys'],
    ['/administration/index', '/administration'],
    ['/administration/index.html', '/administration'],
    ['/administration/index/', '/administration'],
    ['//a//b/', '/a/b'],
    ['/a/b?x=1#top', '/a/b'],
    ['/caf%C3%A9', '/café'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeDocPath(input)).toBe(expected);
  });

  it('rejects a bad percent-encoding with the documented message', () => {
    expect(() => normalizeDocPath('/a%E0%A4%A')).toThrow(DocPathError);
    expect(() => normalizeDocPath('/a%E0%A4%A')).toThrow('Pathname "/a%E0%A4%A" could not be decoded.');
  });

  it('maps files to routes and routes to output files', () => {
    expect(routeForPageFile('index.mdx')).toBe('/');
    expect(routeForPageFile('dashboards/overview.mdx')).toBe('/dashboards/overview');
    expect(routeForPageFile('dashboards/index.md')).toBe('/dashboards');
    expect(fileForRoute('/')).toBe('index.json');
    expect(fileForRoute('/dashboards/overview')).toBe('dashboards__overview.json');
  });
});

describe('slugger', () => {
  it('makes readable ids', () => {
    expect(slugify('Sending the key')).toBe('sending-the-key');
    expect(slugify('`Authorization: Api <key>`')).toBe('authorization-api-key');
    expect(slugify('  Größe & Maße — v2 ')).toBe('größe-maße-v2');
    expect(slugify('!!!')).toBe('');
  });

  it('never hands out the same id twice on a page', () => {
    const slug = createSlugger();
    expect(['Setup', 'Setup', 'Setup 1', 'Setup', '!!!', '???'].map(slug)).toEqual(['setup', 'setup-1', 'setup-1-1', 'setup-2', 'section', 'section-1']);
  });
});
