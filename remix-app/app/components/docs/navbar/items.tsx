/** Drawing resolved navbar items, in the bar (desktop) and in the mobile menu. */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { useDismiss } from '../../../lib/use-dismiss';
import { STORAGE_KEYS, storageSet } from '../../../lib/docs-storage';
import { siteConfig } from '../config';
import { DocSearchButton } from '../search';
import { isLinkActive, type PositionedItem, type ResolvedChild, type ResolvedLink } from './resolve';

export interface ItemContext {
  pathname: string;
  /** Some exact-match link of the navbar is the current page (sidebar links then step back). */
  exactElsewhere: boolean;
  mobile: boolean;
}

function ExternalIcon() {
  return (
    <svg width="12" height="12" viewBox="0 0 24 24" aria-hidden="true" className="icon-external">
      <path fill="currentColor" d="M21 13v10h-21v-19h12v2h-10v15h17v-8h2zm3-12h-10.988l4.035 4-6.977 7.07 2.828 2.828 6.977-7.07 4.125 4.172v-11z" />
    </svg>
  );
}

function NavLinkItem({ link, ctx, className }: { link: ResolvedLink; ctx: ItemContext; className: string }) {
  const active = isLinkActive(link, ctx.pathname, ctx.exactElsewhere);
  const cls = `${className}${active ? ` ${className}--active` : ''}`;
  const onClick = link.version
    ? () => {
        storageSet(STORAGE_KEYS.preferredVersion(link.version!.pluginId), link.version!.name);
        window.dispatchEvent(new StorageEvent('storage')); // the layout re-reads the preferred versions
      }
    : undefined;
  if (link.client) {
    return (
      <Link to={link.href} prefetch="intent" className={cls} aria-current={active ? 'page' : undefined} onClick={onClick}>
        {link.label}
      </Link>
    );
  }
  return (
    <a href={link.href} className={cls} onClick={onClick} {...(link.external ? { target: '_blank', rel: 'noopener noreferrer' } : {})}>
      {link.label}
      {link.external ? (
        <>
          <ExternalIcon />
          <span className="visually-hidden"> (opens in a new tab)</span>
        </>
      ) : null}
    </a>
  );
}

function Child({ item, ctx, className }: { item: ResolvedChild; ctx: ItemContext; className: string }) {
  if (item.kind === 'html') return <div className={`${className} navbar__html`} dangerouslySetInnerHTML={{ __html: item.html }} />;
  return <NavLinkItem link={item} ctx={ctx} className={className} />;
}

/** A disclosure: click (or hover with a mouse) opens it; Escape, a click elsewhere or leaving it closes it. */
function Dropdown({ label, children, ctx }: { label: ReactNode; children: ReactNode; ctx: ItemContext }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const id = useId();
  useDismiss(open, root, () => setOpen(false), 'pointerdown');
  useEffect(() => setOpen(false), [ctx.pathname]);
  const base = ctx.mobile ? 'menu__dropdown' : 'navbar__dropdown';
  return (
    <div
      ref={root}
      className={`${base}${open ? ` ${base}--open` : ''}`}
      onBlur={(e) => {
        if (!ctx.mobile && !root.current?.contains(e.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        type="button"
        className={ctx.mobile ? 'menu__link menu__link--caret' : 'navbar__link navbar__link--caret'}
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
      >
        {label}
      </button>
      <ul id={id} className={ctx.mobile ? 'menu__list' : 'dropdown__menu'}>
        {children}
      </ul>
    </div>
  );
}

function LocaleDropdown({ ctx }: { ctx: ItemContext }) {
  const location = useLocation();
  const { locales, defaultLocale } = siteConfig.i18n;
  const current = locales.find((l) => l.locale === defaultLocale) ?? locales[0]!;
  // Only the default locale exists: its pages live at the root, so a link keeps path, query and hash.
  const here = `${location.pathname}${location.search}${location.hash}`;
  const itemClass = ctx.mobile ? 'menu__link' : 'dropdown__link';
  return (
    <Dropdown
      label={
        <>
          <span className="visually-hidden">Language: </span>
          {current.label}
        </>
      }
      ctx={ctx}
    >
      {locales.map((l) => (
        <li key={l.locale}>
          <a
            href={l.locale === defaultLocale ? here : `/${l.locale}${here}`}
            hrefLang={l.htmlLang}
            lang={l.htmlLang}
            className={`${itemClass}${l.locale === current.locale ? ` ${itemClass}--active` : ''}`}
            data-locale={l.locale}
          >
            {l.label}
          </a>
        </li>
      ))}
    </Dropdown>
  );
}

/** One navbar item; `mobile` draws it for the mobile menu's list. */
export function NavbarItem({ item, ctx }: { item: PositionedItem; ctx: ItemContext }) {
  const linkClass = ctx.mobile ? 'menu__link' : 'navbar__link';
  switch (item.kind) {
    case 'link':
    case 'html':
      return <Child item={item} ctx={ctx} className={linkClass} />;
    case 'search':
      return ctx.mobile ? null : <DocSearchButton />;
    case 'locale':
      return <LocaleDropdown ctx={ctx} />;
    case 'dropdown':
      return (
        <Dropdown label={item.label} ctx={ctx}>
          {item.items.map((child, i) => (
            <li key={i}>
              <Child item={child} ctx={ctx} className={ctx.mobile ? 'menu__link' : 'dropdown__link'} />
            </li>
          ))}
        </Dropdown>
      );
  }
}

/** Whether any exact-match link (also inside dropdowns) is the current page. */
export function hasExactMatch(items: PositionedItem[], pathname: string): boolean {
  const links: ResolvedLink[] = [];
  for (const it of items) {
    if (it.kind === 'link') links.push(it);
    else if (it.kind === 'dropdown') for (const c of it.items) if (c.kind === 'link') links.push(c);
  }
  return links.some((l) => l.match?.type === 'exact' && l.match.path === pathname);
}
