import { useRef } from 'react';
import { Link, useLocation } from 'react-router';
import { Logo } from '../../Logo';
import { ColorModeToggle } from '../ColorModeToggle';
import { siteConfig } from '../config';
import { useHideableNavbar } from './hideOnScroll';
import { hasExactMatch, NavbarItem, type ItemContext } from './items';
import type { PositionedItem } from './resolve';

export function NavbarBrand() {
  return (
    <Link to="/" className="navbar__brand" prefetch="intent">
      <Logo size={24} />
      <b className="navbar__title">{siteConfig.navbar.title}</b>
      <span className="navbar__tag">Docs</span>
    </Link>
  );
}

/** The fixed top bar: brand, left items, right items, colour switch; the hamburger on mobile. */
export function Navbar({ items, mobileOpen, onToggleMobile }: { items: PositionedItem[]; mobileOpen: boolean; onToggleMobile: () => void }) {
  const ref = useRef<HTMLElement>(null);
  const visible = useHideableNavbar(siteConfig.navbar.hideOnScroll && !mobileOpen, ref);
  const { pathname } = useLocation();
  const ctx: ItemContext = { pathname, exactElsewhere: hasExactMatch(items, pathname), mobile: false };
  const render = (side: 'left' | 'right') =>
    items
      .filter((i) => i.position === side)
      .map((item) => (
        <div key={item.key} className={`navbar__item navbar__item--${item.kind}`}>
          <NavbarItem item={item} ctx={ctx} />
        </div>
      ));
  return (
    <header ref={ref} className={`navbar${visible ? '' : ' navbar--hidden'}`} data-visible={visible}>
      <nav aria-label="Documentation" className="navbar__inner">
        <div className="navbar__side">
          <button
            type="button"
            className="navbar__toggle"
            aria-label="Toggle navigation bar"
            aria-expanded={mobileOpen}
            onClick={onToggleMobile}
            data-testid="navbar-toggle"
          >
            <svg width="24" height="24" viewBox="0 0 30 30" aria-hidden="true">
              <path stroke="currentColor" strokeLinecap="round" strokeWidth="2" d="M4 7h22M4 15h22M4 23h22" />
            </svg>
          </button>
          <NavbarBrand />
          {render('left')}
        </div>
        <div className="navbar__side navbar__side--right">
          {render('right')}
          {siteConfig.colorMode.disableSwitch ? null : <ColorModeToggle />}
        </div>
      </nav>
    </header>
  );
}
