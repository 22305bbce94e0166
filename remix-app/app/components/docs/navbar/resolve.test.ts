import { describe, expect, it } from 'vitest';
import type { NavbarItemConfig } from '../config';
import { isLinkActive, navbarContext, NavbarItemError, resolveNavbarItem, resolveNavbarItems, type ResolvedLink } from './resolve';

const sidebar = [
  { label: 'Introduction', items: [{ route: '/', title: 'Cairn documentation' }] },
  { label: 'Administration', items: [{ route: '/administration/api-keys', title: 'API keys' }] },
  { label: 'API reference', items: [{ route: '/api/v2024-06-01', title: 'API reference v2024-06-01' }] },
];
const plugins = {
  default: { versions: [{ name: 'current', label: 'Current', mainDocId: 'index' }] },
  api: {
    versions: [
      { name: 'v2024-06-01', label: 'v2024-06-01', mainDocId: 'api/v2024-06-01' },
      { name: 'v2023', label: 'v2023', mainDocId: 'administration/api-keys' },
    ],
  },
};
const prefs = new Map<string, string>();
const ctx = navbarContext(sidebar, ['secret-draft'], plugins, (id) => prefs.get(id) ?? null);

describe('navbar items', () => {
  it('resolves doc and doc sidebar links', () => {
    expect(resolveNavbarItem({ type: 'doc', docId: 'api/v2024-06-01', label: 'API Docs' }, ctx)).toMatchObject({
      kind: 'link',
      label: 'API Docs',
      href: '/api/v2024-06-01',
      match: { type: 'exact', path: '/api/v2024-06-01' },
    });
    expect(resolveNavbarItem({ type: 'doc', docId: 'index' }, ctx)).toMatchObject({ label: 'Cairn documentation', href: '/' });
    expect(resolveNavbarItem({ type: 'docSidebar', sidebarId: 'docs', label: 'User Docs' }, ctx)).toMatchObject({
      kind: 'link',
      href: '/',
      match: { type: 'sidebar' },
    });
  });

  it('throws the documented error for an unknown type', () => {
    expect(() => resolveNavbarItem({ type: 'fancy' } as unknown as NavbarItemConfig, ctx)).toThrow('No NavbarItem component found for type "fancy".');
    expect(() => resolveNavbarItem({ type: 'dropdown', label: 'x', items: [{ type: 'search' }] } as unknown as NavbarItemConfig, ctx)).toThrow(
      'No NavbarItem component found for type "search".',
    );
  });

  it('throws the documented error for an empty sidebar', () => {
    const empty = navbarContext([{ label: 'Nothing', items: [] }], [], plugins, () => null);
    expect(() => resolveNavbarItem({ type: 'docSidebar', sidebarId: 'docs', label: 'Docs' }, empty)).toThrow(
      'DocSidebarNavbarItem: Sidebar with ID "docs" doesn\'t have anything to be linked to.',
    );
    expect(() => resolveNavbarItem({ type: 'docSidebar', sidebarId: 'guides', label: 'Docs' }, ctx)).toThrow(/Available sidebar ids are:\n- docs/);
  });

  it('lists the available ids for an unknown doc id, and draws nothing for a draft', () => {
    expect(() => resolveNavbarItem({ type: 'doc', docId: 'nope' }, ctx)).toThrow(
      'DocNavbarItem: couldn\'t find any doc with id "nope". Available doc ids are:\n- administration/api-keys\n- api/v2024-06-01\n- index',
    );
    expect(resolveNavbarItem({ type: 'doc', docId: 'secret-draft' }, ctx)).toBeNull();
  });

  it('names the failing item config and keeps the cause', () => {
    const bad = { type: 'doc', docId: 'nope', label: 'Broken' } as const;
    let err: unknown;
    try {
      resolveNavbarItems([{ type: 'search' }, bad], ctx);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NavbarItemError);
    expect((err as Error).message).toContain('A navbar item failed to render.');
    expect((err as Error).message).toContain('"docId": "nope"');
    expect(((err as Error).cause as Error).message).toMatch(/^DocNavbarItem: couldn't find any doc with id "nope"/);
  });

  it('puts items on the right unless told otherwise', () => {
    const items = resolveNavbarItems(
      [
        { label: 'A', to: '/a', position: 'left' },
        { label: 'B', href: 'https://example.com' },
        { type: 'html', value: '<b>x</b>' },
      ],
      ctx,
    );
    expect(items.map((i) => i.position)).toEqual(['left', 'right', 'right']);
    expect(items[1]).toMatchObject({ kind: 'link', external: true });
    expect(items[2]).toMatchObject({ kind: 'html', html: '<b>x</b>' });
  });

  it('lists versions and links the preferred one', () => {
    const dropdown = resolveNavbarItem({ type: 'docsVersionDropdown', docsPluginId: 'api' }, ctx);
    expect(dropdown).toMatchObject({ kind: 'dropdown', label: 'v2024-06-01' });
    expect((dropdown as { items: ResolvedLink[] }).items.map((i) => [i.href, i.version?.name])).toEqual([
      ['/api/v2024-06-01', 'v2024-06-01'],
      ['/administration/api-keys', 'v2023'],
    ]);
    expect(resolveNavbarItem({ type: 'docsVersion', docsPluginId: 'api', label: 'API' }, ctx)).toMatchObject({ href: '/api/v2024-06-01', label: 'API' });
    prefs.set('api', 'v2023');
    expect(resolveNavbarItem({ type: 'docsVersion', docsPluginId: 'api' }, ctx)).toMatchObject({ href: '/administration/api-keys', label: 'v2023' });
    prefs.set('api', 'gone');
    expect(resolveNavbarItem({ type: 'docsVersion', docsPluginId: 'api' }, ctx)).toMatchObject({ href: '/api/v2024-06-01' });
    expect(() => resolveNavbarItem({ type: 'docsVersionDropdown', docsPluginId: 'blog' }, ctx)).toThrow(/Available docs plugin ids are:\n- default\n- api/);
  });

  it('marks active links; a sidebar link yields to an exact match', () => {
    const [userDocs, apiDocs] = resolveNavbarItems(
      [
        { type: 'docSidebar', sidebarId: 'docs', label: 'User Docs' },
        { type: 'doc', docId: 'api/v2024-06-01', label: 'API Docs' },
      ],
      ctx,
    ) as ResolvedLink[];
    expect(isLinkActive(apiDocs!, '/api/v2024-06-01', false)).toBe(true);
    expect(isLinkActive(userDocs!, '/api/v2024-06-01', true)).toBe(false);
    expect(isLinkActive(userDocs!, '/administration/api-keys', false)).toBe(true);
    const prefix = { kind: 'link', label: 'x', href: '/app/', external: false, client: false, match: { type: 'prefix', path: '/app' } } as ResolvedLink;
    expect(isLinkActive(prefix, '/app/dashboards/1', false)).toBe(true);
    expect(isLinkActive(prefix, '/apple', false)).toBe(false);
  });
});
