/**
 * Navbar items from the config to what is drawn: every doc id, sidebar and docs plugin is checked
 * against the built docs here, so a bad config fails loudly with the errors the spec names.
 */
import type { DocsPluginConfig, DropdownChildConfig, ItemPosition, NavbarItemConfig } from '../config';

export interface SidebarGroupData {
  label: string;
  items: { route: string; title: string }[];
}

export interface NavbarContext {
  /** Sidebar id → its groups (the docs have one sidebar, `docs`). */
  sidebars: Record<string, SidebarGroupData[]>;
  /** Doc id → route and title. */
  docs: Map<string, { route: string; title: string }>;
  /** Ids of draft docs: a navbar item pointing at one draws nothing. */
  drafts: Set<string>;
  plugins: Record<string, DocsPluginConfig>;
  /** The stored preferred version name of a plugin, if any. */
  preferredVersion: (pluginId: string) => string | null;
}

/** `match`: exact (the path), prefix (the path and below), sidebar (any page of the sidebar). */
export interface ResolvedLink {
  kind: 'link';
  label: string;
  href: string;
  /** Another site: opens in a new tab. */
  external: boolean;
  /** A docs page: navigated inside the page (no full load). */
  client: boolean;
  match: { type: 'exact'; path: string } | { type: 'prefix'; path: string } | { type: 'sidebar'; routes: string[] } | null;
  /** Choosing it stores this preferred version. */
  version?: { pluginId: string; name: string };
}
interface ResolvedHtml {
  kind: 'html';
  html: string;
}
export type ResolvedChild = ResolvedLink | ResolvedHtml;
export type ResolvedItem = ResolvedChild | { kind: 'dropdown'; label: string; items: ResolvedChild[] } | { kind: 'search' } | { kind: 'locale' };

export type PositionedItem = ResolvedItem & { position: ItemPosition; key: string };

const isExternal = (href: string) => /^[a-z][a-z\d+.-]*:|^\/\//i.test(href);

function docIdList(ctx: NavbarContext): string {
  return [...ctx.docs.keys()]
    .sort()
    .map((id) => `- ${id}`)
    .join('\n');
}

function resolveDoc(docId: string, label: string | undefined, ctx: NavbarContext): ResolvedLink | null {
  const doc = ctx.docs.get(docId);
  if (!doc) {
    if (ctx.drafts.has(docId)) return null;
    throw new Error(`DocNavbarItem: couldn't find any doc with id "${docId}". Available doc ids are:\n${docIdList(ctx)}`);
  }
  return { kind: 'link', label: label ?? doc.title, href: doc.route, external: false, client: true, match: { type: 'exact', path: doc.route } };
}

function resolveSidebar(sidebarId: string, label: string, ctx: NavbarContext): ResolvedLink {
  const sidebar = ctx.sidebars[sidebarId];
  if (!sidebar) {
    const ids = Object.keys(ctx.sidebars)
      .map((id) => `- ${id}`)
      .join('\n');
    throw new Error(`DocSidebarNavbarItem: couldn't find any sidebar with id "${sidebarId}". Available sidebar ids are:\n${ids}`);
  }
  const routes = sidebar.flatMap((g) => g.items.map((i) => i.route));
  if (routes.length === 0) {
    throw new Error(`DocSidebarNavbarItem: Sidebar with ID "${sidebarId}" doesn't have anything to be linked to.`);
  }
  return { kind: 'link', label, href: routes[0]!, external: false, client: true, match: { type: 'sidebar', routes } };
}

function plugin(pluginId: string, ctx: NavbarContext): DocsPluginConfig {
  const p = ctx.plugins[pluginId];
  if (!p || p.versions.length === 0) {
    const ids = Object.keys(ctx.plugins)
      .map((id) => `- ${id}`)
      .join('\n');
    throw new Error(`No docs plugin with id "${pluginId}" (or it has no versions). Available docs plugin ids are:\n${ids}`);
  }
  return p;
}

function versionLinks(pluginId: string, ctx: NavbarContext): ResolvedLink[] {
  return plugin(pluginId, ctx).versions.map((v) => {
    const doc = resolveDoc(v.mainDocId, v.label, ctx);
    if (!doc) throw new Error(`The main doc "${v.mainDocId}" of version "${v.name}" is a draft.`);
    return { ...doc, version: { pluginId, name: v.name } };
  });
}

/** The stored preferred version of the plugin if it still exists, else the latest. */
function preferredLink(pluginId: string, ctx: NavbarContext): ResolvedLink {
  const links = versionLinks(pluginId, ctx);
  const wanted = ctx.preferredVersion(pluginId);
  return links.find((l) => l.version!.name === wanted) ?? links[0]!;
}

function resolveChild(item: DropdownChildConfig, ctx: NavbarContext): ResolvedChild | null {
  switch (item.type) {
    case undefined:
    case 'default': {
      const href = item.to ?? item.href;
      if (!href) throw new Error(`The link "${item.label}" needs "to" or "href".`);
      const base = item.activeBasePath;
      return {
        kind: 'link',
        label: item.label,
        href,
        external: isExternal(href),
        client: Boolean(item.to),
        match: base ? { type: 'prefix', path: base } : item.to ? { type: 'exact', path: item.to } : null,
      };
    }
    case 'doc':
      return resolveDoc(item.docId, item.label, ctx);
    case 'docSidebar':
      return resolveSidebar(item.sidebarId, item.label, ctx);
    case 'html':
      return { kind: 'html', html: item.value };
    default:
      throw new Error(`No NavbarItem component found for type "${(item as { type?: unknown }).type}".`);
  }
}

/** One config item → what to draw (null: nothing, e.g. a link to a draft). Throws the spec's errors. */
export function resolveNavbarItem(item: NavbarItemConfig, ctx: NavbarContext): ResolvedItem | null {
  switch (item.type) {
    case 'search':
      return { kind: 'search' };
    case 'localeDropdown':
      return { kind: 'locale' };
    case 'dropdown':
      return {
        kind: 'dropdown',
        label: item.label,
        items: item.items.map((child) => resolveChild(child, ctx)).filter((c): c is ResolvedChild => c !== null),
      };
    case 'docsVersion': {
      const link = preferredLink(item.docsPluginId ?? 'default', ctx);
      return { ...link, label: item.label ?? link.label };
    }
    case 'docsVersionDropdown': {
      const pluginId = item.docsPluginId ?? 'default';
      return { kind: 'dropdown', label: preferredLink(pluginId, ctx).label, items: versionLinks(pluginId, ctx) };
    }
    default:
      return resolveChild(item as DropdownChildConfig, ctx);
  }
}

/** Names the failing item, keeping the original error as the cause (shown on the crash page). */
export class NavbarItemError extends Error {
  constructor(item: unknown, cause: unknown) {
    super(`A navbar item failed to render.\nPlease check this item of the navbar config (siteConfig.navbar.items):\n${JSON.stringify(item, null, 2)}`, {
      cause,
    });
    this.name = 'NavbarItemError';
  }
}

/** Every item, in config order, with its position (right by default); failures name the item. */
export function resolveNavbarItems(items: NavbarItemConfig[], ctx: NavbarContext): PositionedItem[] {
  const out: PositionedItem[] = [];
  items.forEach((item, i) => {
    let resolved: ResolvedItem | null;
    try {
      resolved = resolveNavbarItem(item, ctx);
    } catch (err) {
      throw new NavbarItemError(item, err);
    }
    if (resolved) out.push({ ...resolved, position: item.position ?? 'right', key: `${i}` });
  });
  return out;
}

/** Whether a link counts as the current page. Sidebar links yield to an exact match elsewhere. */
export function isLinkActive(link: ResolvedLink, pathname: string, exactElsewhere: boolean): boolean {
  const m = link.match;
  if (!m) return false;
  if (m.type === 'exact') return pathname === m.path;
  if (m.type === 'prefix') return pathname === m.path || pathname.startsWith(m.path.endsWith('/') ? m.path : `${m.path}/`);
  return !exactElsewhere && m.routes.includes(pathname);
}

/** Builds the context from the docs sidebar (every page is in it) and the draft ids. */
export function navbarContext(
  sidebar: SidebarGroupData[],
  drafts: string[],
  plugins: Record<string, DocsPluginConfig>,
  preferredVersion: (pluginId: string) => string | null,
): NavbarContext {
  const docs = new Map<string, { route: string; title: string }>();
  for (const g of sidebar) for (const i of g.items) docs.set(docIdOf(i.route), i);
  return { sidebars: { docs: sidebar }, docs, drafts: new Set(drafts), plugins, preferredVersion };
}

function docIdOf(route: string): string {
  return route === '/' ? 'index' : route.slice(1);
}
