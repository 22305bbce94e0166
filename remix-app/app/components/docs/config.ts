/**
 * The documentation site's settings in one typed object: navbar items, footer, announcement bar,
 * colour mode, locales and the docs plugins with their versions. Components read it; nothing else
 * decides what the chrome of the docs shows.
 */

export type ItemPosition = 'left' | 'right';

interface ItemBase {
  /** Left or right of the navbar; right when not given. */
  position?: ItemPosition;
  className?: string;
}

/** A plain link: `to` for a path of this site, `href` for another site. */
interface LinkItemConfig extends ItemBase {
  type?: 'default';
  label: string;
  to?: string;
  href?: string;
  /** Also active on every path below this one. */
  activeBasePath?: string;
}
interface DocItemConfig extends ItemBase {
  type: 'doc';
  /** The page's route without the leading slash (`administration/api-keys`; the home page is `index`). */
  docId: string;
  label?: string;
  docsPluginId?: string;
}
interface DocSidebarItemConfig extends ItemBase {
  type: 'docSidebar';
  sidebarId: string;
  label: string;
  docsPluginId?: string;
}
interface DocsVersionItemConfig extends ItemBase {
  type: 'docsVersion';
  docsPluginId?: string;
  label?: string;
}
interface DocsVersionDropdownItemConfig extends ItemBase {
  type: 'docsVersionDropdown';
  docsPluginId?: string;
}
interface LocaleDropdownItemConfig extends ItemBase {
  type: 'localeDropdown';
}
interface SearchItemConfig extends ItemBase {
  type: 'search';
}
interface HtmlItemConfig extends ItemBase {
  type: 'html';
  /** Raw HTML, trusted (it comes from this file). */
  value: string;
}
export type DropdownChildConfig = LinkItemConfig | DocItemConfig | DocSidebarItemConfig | HtmlItemConfig;
interface DropdownItemConfig extends ItemBase {
  type: 'dropdown';
  label: string;
  items: DropdownChildConfig[];
}

export type NavbarItemConfig =
  | LinkItemConfig
  | DocItemConfig
  | DocSidebarItemConfig
  | DocsVersionItemConfig
  | DocsVersionDropdownItemConfig
  | LocaleDropdownItemConfig
  | SearchItemConfig
  | HtmlItemConfig
  | DropdownItemConfig;

interface DocsVersionConfig {
  name: string;
  label: string;
  /** The doc a link to this version opens. */
  mainDocId: string;
}

/** A docs plugin is one set of docs with its versions (latest first). */
export interface DocsPluginConfig {
  versions: DocsVersionConfig[];
}

export interface FooterLink {
  label: string;
  /** A path of this site … */
  to?: string;
  /** … or another site. */
  href?: string;
}

export interface SiteConfig {
  title: string;
  tagline: string;
  navbar: { title: string; hideOnScroll: boolean; items: NavbarItemConfig[] };
  /** null: no footer. */
  footer: {
    style: 'dark' | 'light';
    /** Titled columns, or a flat list when `links` holds plain links. */
    links: { title: string; items: FooterLink[] }[] | FooterLink[];
    logo?: { alt: string; href: string };
    copyright: (year: number) => string;
  } | null;
  announcementBar: { id: string; content: string; isCloseable: boolean } | null;
  colorMode: {
    defaultMode: 'light' | 'dark';
    disableSwitch: boolean;
    /** When nothing is stored: follow the system (true) or use defaultMode (false). */
    respectPrefersColorScheme: boolean;
  };
  i18n: { defaultLocale: string; locales: { locale: string; label: string; htmlLang: string }[] };
  docs: { plugins: Record<string, DocsPluginConfig> };
}

const API_DOCS_ROUTE = '/api/v2024-06-01';

export const siteConfig: SiteConfig = {
  title: 'Cairn Docs',
  tagline: 'Dashboards from SQL, and the API to reach them',
  navbar: {
    title: 'Cairn',
    hideOnScroll: true,
    items: [
      { type: 'docSidebar', sidebarId: 'docs', label: 'User Docs', position: 'left' },
      { type: 'doc', docId: 'api/v2024-06-01', label: 'API Docs', position: 'left' },
      { type: 'docsVersionDropdown', docsPluginId: 'api' },
      { type: 'localeDropdown' },
      { label: 'Open the app', href: '/app/' },
      { type: 'search' },
    ],
  },
  footer: {
    style: 'dark',
    links: [
      {
        title: 'Documentation',
        items: [
          { label: 'User Docs', to: '/' },
          { label: 'API reference', to: API_DOCS_ROUTE },
        ],
      },
      {
        title: 'Cairn',
        items: [
          { label: 'Open the app', href: '/app/' },
          { label: 'Sign in', href: '/app/login' },
        ],
      },
      {
        title: 'More',
        // The deployment's own addresses; .example names are placeholders until a site exists.
        items: [
          { label: 'Cairn website', href: 'https://www.cairn.example/' },
          { label: 'Embedding example', href: 'https://embed-demo.cairn.example/' },
        ],
      },
    ],
    logo: { alt: 'Cairn', href: '/' },
    copyright: (year) => `Copyright © ${year} Cairn contributors.`,
  },
  announcementBar: {
    id: 'api-v2024-06-01',
    content: `Version v2024-06-01 of the public API is documented in the <a href="${API_DOCS_ROUTE}">API reference</a>.`,
    isCloseable: true,
  },
  colorMode: { defaultMode: 'light', disableSwitch: false, respectPrefersColorScheme: false },
  i18n: { defaultLocale: 'en', locales: [{ locale: 'en', label: 'English', htmlLang: 'en' }] },
  docs: {
    plugins: {
      default: { versions: [{ name: 'current', label: 'Current', mainDocId: 'index' }] },
      api: { versions: [{ name: 'v2024-06-01', label: 'v2024-06-01', mainDocId: 'api/v2024-06-01' }] },
    },
  },
};
